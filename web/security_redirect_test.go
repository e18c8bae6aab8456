package web_test

import (
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"testing"

	"kashi/web/webtest"
)

// TestLoginRedirectStaysOnSite: the login's "next" is followed only when it is a path on this
// site, however it is disguised.
func TestLoginRedirectStaysOnSite(t *testing.T) {
	srv, _ := loginServer(t, false)
	tests := map[string]string{
		"/queue?x=1":        "/queue?x=1",
		"/\t/evil.com":      "/",
		"/\n/evil.com":      "/",
		"//evil.com":        "/",
		"/\\evil.com":       "/",
		"\\\\evil.com":      "/",
		"https://evil.com/": "/",
		"javascript:alert":  "/",
		" /x":               "/",
	}
	for next, want := range tests {
		jar, _ := cookiejar.New(nil)
		c := noRedirect(jar)
		tok := csrfToken(t, c, srv.URL)
		form := url.Values{"username": {"ana"}, "password": {"pw-ana"}, "_csrf": {tok.Value}, "next": {next}}
		resp, err := c.PostForm(srv.URL+"/login", form)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || got != want {
			t.Errorf("POST /login next=%q = %d to %q, want 303 to %q", next, resp.StatusCode, got, want)
		}
	}
}

// TestLangRedirectStaysOnSite: /lang goes back to the referring page only when it is a path
// on this site.
func TestLangRedirectStaysOnSite(t *testing.T) {
	s := webtest.NewServer(t)
	for ref, want := range map[string]string{
		"http://example.com/pools?x=1": "/pools?x=1",
		"http://example.com//evil.com": "/",
		"http://example.com/%09/evil":  "/%09/evil",
		"http://evil.com/":             "/",
	} {
		w := s.Get("/lang?set=en", "Referer", ref)
		if got := w.Header().Get("Location"); w.Code != http.StatusSeeOther || got != want {
			t.Errorf("GET /lang with Referer %q = %d to %q, want 303 to %q", ref, w.Code, got, want)
		}
	}
}
