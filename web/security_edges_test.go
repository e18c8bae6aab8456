package web_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"kashi/web"
	"kashi/web/webtest"
)

// TestJSONWithoutCredentialsIs401: a JSON call with neither a token nor a session is told
// to send a bearer token (401), not to reload a page.
func TestJSONWithoutCredentialsIs401(t *testing.T) {
	s := webtest.NewServer(t)
	webtest.TaskFleet(s)
	w := s.Do(webtest.Req{Method: http.MethodPost, Path: "/api/v1/tasks", Body: webtest.TaskBody(nil), Hdr: map[string]string{"Authorization": ""}})
	if w.Code != http.StatusUnauthorized || !strings.Contains(w.Body.String(), "Bearer") {
		t.Errorf("POST /api/v1/tasks without credentials = %d %s, want 401 naming a bearer token", w.Code, w.Body)
	}
}

// TestHSTSWithHTTPSPublicURL: HSTS is sent when Kashi is served at an https URL, also when a
// proxy in front talks plain HTTP to it; never otherwise.
func TestHSTSWithHTTPSPublicURL(t *testing.T) {
	s := webtest.NewServer(t)
	for secure, want := range map[bool]string{true: "max-age=31536000", false: ""} {
		e := web.New(web.NewAreas(s.Store, s.Sched, webtest.TestCfg(), s.Clock), secure, slog.New(slog.NewTextHandler(io.Discard, nil)))
		w := httptest.NewRecorder()
		e.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/healthz", nil))
		if got := w.Header().Get("Strict-Transport-Security"); got != want {
			t.Errorf("secure=%v: Strict-Transport-Security = %q, want %q", secure, got, want)
		}
	}
}

// TestTaskNameControlCharacters: names with control characters are refused.
func TestTaskNameControlCharacters(t *testing.T) {
	s := webtest.NewServer(t)
	webtest.TaskFleet(s)
	for _, name := range []string{`"a\tb"`, `"a\nb"`, `"\u001b[31mred"`, `"a\u0085b"`} {
		w := s.Post("/api/v1/tasks", webtest.TaskBody(map[string]string{"name": name}))
		webtest.WantAPIError(t, "name "+name, w, http.StatusUnprocessableEntity, "name")
	}
}
