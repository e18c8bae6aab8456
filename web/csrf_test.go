package web_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"kashi/handlers"
	"kashi/handlers/people"
	"kashi/models"
	"kashi/models/modelstest"
	"kashi/scheduler"
	"kashi/web"
	"kashi/web/webtest"
)

// loginServer is a server with the user "ana" (admin) and its CSRF-protected forms.
func loginServer(t *testing.T, secure bool) (*httptest.Server, *models.Store) {
	t.Helper()
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	s := modelstest.SQLite(t, models.Options{})
	if _, err := s.CreateUser(context.Background(), "ana", "pw-ana", models.RoleAdmin, now); err != nil {
		t.Fatal(err)
	}
	h := web.NewAreas(s, &webtest.FakeSched{Loop: scheduler.NewLoop(s, scheduler.LoopConfig{})}, handlers.Config{
		Sessions: models.SessionLimits{Idle: time.Hour, Absolute: 24 * time.Hour}, SecureCookies: secure,
		Location: time.UTC, TaskLimits: models.DefaultTaskLimits}, func() time.Time { return now })
	srv := httptest.NewServer(web.New(h, secure, slog.New(slog.NewTextHandler(io.Discard, nil))))
	t.Cleanup(srv.Close)
	return srv, s
}

// csrfToken fetches the login page and returns the CSRF cookie it sets.
func csrfToken(t *testing.T, c *http.Client, base string) *http.Cookie {
	t.Helper()
	resp, err := c.Get(base + "/login")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for _, ck := range resp.Cookies() {
		if ck.Name == "_csrf" {
			return ck
		}
	}
	t.Fatal("GET /login set no _csrf cookie")
	return nil
}

func noRedirect(jar http.CookieJar) *http.Client {
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func TestLoginSetsSafeCookies(t *testing.T) {
	for name, secure := range map[string]bool{"http": false, "https public URL": true} {
		t.Run(name, func(t *testing.T) {
			srv, _ := loginServer(t, secure)
			jar, _ := cookiejar.New(nil)
			c := noRedirect(jar)
			tok := csrfToken(t, c, srv.URL)
			if !tok.HttpOnly || tok.SameSite != http.SameSiteLaxMode || tok.Secure != secure {
				t.Errorf("_csrf cookie = %+v, want HttpOnly, SameSite=Lax, Secure=%v", tok, secure)
			}
			form := url.Values{"username": {"ana"}, "password": {"pw-ana"}, "_csrf": {tok.Value}}
			resp, err := c.PostForm(srv.URL+"/login", form)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusSeeOther {
				t.Fatalf("POST /login = %d, want 303", resp.StatusCode)
			}
			var sess *http.Cookie
			for _, ck := range resp.Cookies() {
				if ck.Name == people.SessionCookie {
					sess = ck
				}
			}
			if sess == nil || !sess.HttpOnly || sess.SameSite != http.SameSiteLaxMode || sess.Path != "/" || sess.Secure != secure {
				t.Fatalf("session cookie = %+v, want HttpOnly, SameSite=Lax, Path=/, Secure=%v", sess, secure)
			}
			if !secure { // the jar sends Secure cookies only over https
				resp, _ = c.Get(srv.URL + "/")
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					t.Errorf("GET / with the session = %d, want 200", resp.StatusCode)
				}
			}
		})
	}
}

// cookieToken in a header the CSRF tests send stands for the browser's token.
const cookieToken = "<the cookie's token>"

func TestCSRFRefusals(t *testing.T) {
	srv, s := loginServer(t, false)
	// Each case is a browser of its own: an accepted login gives the browser a new token.
	post := func(form func(tok string) url.Values, hdr map[string]string) int {
		jar, _ := cookiejar.New(nil)
		c := noRedirect(jar)
		tok := csrfToken(t, c, srv.URL)
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/login", strings.NewReader(form(tok.Value).Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		for k, v := range hdr {
			if v == cookieToken {
				v = tok.Value
			}
			req.Header.Set(k, v)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	creds := func(string) url.Values { return url.Values{"username": {"ana"}, "password": {"pw-ana"}} }
	withToken := func(tok string) url.Values {
		return url.Values{"username": {"ana"}, "password": {"pw-ana"}, "_csrf": {tok}}
	}
	tests := map[string]struct {
		form func(tok string) url.Values
		hdr  map[string]string
		want int
	}{
		"no token":                      {creds, nil, http.StatusForbidden},
		"no token, same-origin header":  {creds, map[string]string{"Sec-Fetch-Site": "same-origin"}, http.StatusForbidden},
		"wrong token":                   {func(tok string) url.Values { return withToken("x" + tok) }, nil, http.StatusForbidden},
		"cross-site with a good token":  {withToken, map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"}, http.StatusForbidden},
		"same-site with a good token":   {withToken, map[string]string{"Sec-Fetch-Site": "same-site"}, http.StatusForbidden},
		"token in the header":           {creds, map[string]string{"X-CSRF-Token": cookieToken}, http.StatusSeeOther},
		"same-origin with a good token": {withToken, map[string]string{"Sec-Fetch-Site": "same-origin"}, http.StatusSeeOther},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := post(tc.form, tc.hdr); got != tc.want {
				t.Errorf("POST /login (%s) = %d, want %d", name, got, tc.want)
			}
		})
	}
	// Refused posts changed nothing: only the accepted logins are in the audit log.
	log, _ := s.AuditLog(context.Background(), models.AuditFilter{})
	if len(log) != 2 {
		t.Errorf("audit log has %d entries after 2 accepted logins, want 2", len(log))
	}
}

// TestCSRFRotatedAtLogin: a login sets a new CSRF token, once; the token from before it no
// longer passes, the new one does.
func TestCSRFRotatedAtLogin(t *testing.T) {
	srv, _ := loginServer(t, false)
	jar, _ := cookiejar.New(nil)
	c := noRedirect(jar)
	before := csrfToken(t, c, srv.URL)
	resp, err := c.PostForm(srv.URL+"/login", url.Values{"username": {"ana"}, "password": {"pw-ana"}, "_csrf": {before.Value}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var set []*http.Cookie
	for _, ck := range resp.Cookies() {
		if ck.Name == "_csrf" {
			set = append(set, ck)
		}
	}
	if resp.StatusCode != http.StatusSeeOther || len(set) != 1 || set[0].Value == before.Value || set[0].Value == "" {
		t.Fatalf("POST /login = %d setting _csrf %v, want 303 setting one new token", resp.StatusCode, set)
	}
	if !set[0].HttpOnly || set[0].SameSite != http.SameSiteLaxMode || set[0].Path != "/" {
		t.Errorf("the new _csrf cookie = %+v, want HttpOnly, SameSite=Lax, Path=/", set[0])
	}
	logout := func(tok string) int {
		resp, err := c.PostForm(srv.URL+"/logout", url.Values{"_csrf": {tok}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := logout(before.Value); got != http.StatusForbidden {
		t.Errorf("POST /logout with the token from before the login = %d, want 403", got)
	}
	if got := logout(set[0].Value); got != http.StatusSeeOther {
		t.Errorf("POST /logout with the new token = %d, want 303", got)
	}
}

// TestMemberCannotProbeOtherProjects checks that ids of another project's tasks answer 404.
func TestMemberCannotProbeOtherProjects(t *testing.T) {
	w := webtest.NewRoleWorld(t)
	ctx := context.Background()
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	other, _ := w.Store.EnsureProject(ctx, "nlp", now)
	if _, err := w.Store.SetQuota(ctx, "admin", models.Quota{ProjectID: other.ID, MaxGPUs: 1, BudgetCardHours: 1, StartsAt: now, EndsAt: now.Add(time.Hour)}, now); err != nil {
		t.Fatal(err)
	}
	registerTestNode(t, w.Store, now)
	tk, _, err := w.Store.CreateTask(ctx, models.NewTask{Project: "nlp", Name: "secret", Owner: "x", GPUs: 1, Queue: "long",
		Priority: "normal", Command: []string{"x"}}, models.DefaultTaskLimits, now)
	if err != nil {
		t.Fatal(err)
	}
	get := func(method, path, token string) int {
		req, _ := http.NewRequest(method, w.Srv.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	id := "/api/v1/tasks/" + webtest.IDStr(tk.ID)
	for _, tc := range []struct {
		method, path, role string
		want               int
	}{
		{http.MethodGet, id, "member", http.StatusNotFound},
		{http.MethodPost, id + "/cancel", "member", http.StatusNotFound},
		{http.MethodPost, id + "/ready", "lead", http.StatusNotFound},
		{http.MethodGet, id, "admin", http.StatusOK},
	} {
		if got := get(tc.method, tc.path, w.Tokens[tc.role]); got != tc.want {
			t.Errorf("%s %s as %s = %d, want %d", tc.method, tc.path, tc.role, got, tc.want)
		}
	}
	// Lists never show other projects' tasks.
	req, _ := http.NewRequest(http.MethodGet, w.Srv.URL+"/api/v1/tasks", nil)
	req.Header.Set("Authorization", "Bearer "+w.Tokens["member"])
	resp, _ := http.DefaultClient.Do(req)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if strings.Contains(string(body), "secret") {
		t.Errorf("GET /api/v1/tasks as a vision member lists nlp's task: %s", body)
	}
}

// registerTestNode registers one node of 8 A100s.
func registerTestNode(t *testing.T, s *models.Store, now time.Time) {
	t.Helper()
	req := models.NodeRegistration{Hostname: "probe-node", Pool: "a100"}
	for i := 0; i < 8; i++ {
		req.GPUs = append(req.GPUs, models.GPUInfo{UUID: "probe-" + webtest.IDStr(int64(i)), Index: i, Name: "NVIDIA A100-SXM4-80GB", MemoryTotalMiB: 81920})
	}
	if _, err := s.RegisterNode(context.Background(), req, "probe-hash", now); err != nil {
		t.Fatal(err)
	}
}
