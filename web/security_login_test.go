package web_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"kashi/models"
)

// login posts the login form from addr through the router, with a CSRF token, and returns
// the answer.
func (s *server) login(name, password, addr string) *httptest.ResponseRecorder {
	s.tb.Helper()
	get := httptest.NewRecorder()
	s.e.ServeHTTP(get, httptest.NewRequest(http.MethodGet, "/login", nil))
	var csrf *http.Cookie
	for _, ck := range get.Result().Cookies() {
		if ck.Name == "_csrf" {
			csrf = ck
		}
	}
	if csrf == nil {
		s.tb.Fatal("GET /login set no _csrf cookie")
	}
	form := url.Values{"username": {name}, "password": {password}, "_csrf": {csrf.Value}}
	r := httptest.NewRequest(http.MethodPost, "/login", strings.NewReader(form.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.AddCookie(csrf)
	r.RemoteAddr = addr + ":40000"
	w := httptest.NewRecorder()
	s.e.ServeHTTP(w, r)
	return w
}

func (s *server) failedLogins() int {
	s.tb.Helper()
	es, err := s.store.AuditLog(context.Background(), models.AuditFilter{Limit: 1000})
	if err != nil {
		s.tb.Fatal(err)
	}
	n := 0
	for _, e := range es {
		if e.Action == models.AuditLoginFailed {
			n++
		}
	}
	return n
}

// TestLoginThrottledPerAccount: after five wrong passwords an account waits, even with the
// right one, the page says how long, and the audit log stops growing.
func TestLoginThrottledPerAccount(t *testing.T) {
	s := newServer(t)
	if _, err := s.store.CreateUser(context.Background(), "ana", "pw-ana", models.RoleUser, t0); err != nil {
		t.Fatal(err)
	}
	for i := range 40 {
		w := s.login("ana", "guess", "192.0.2.1")
		want := http.StatusUnauthorized
		if i >= 5 {
			want = http.StatusTooManyRequests
		}
		if w.Code != want {
			t.Fatalf("wrong password %d = %d, want %d", i+1, w.Code, want)
		}
	}
	w := s.login("ana", "pw-ana", "192.0.2.1")
	if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "180" || !strings.Contains(w.Body.String(), "3m0s") {
		t.Errorf("right password while throttled = %d Retry-After %q, want 429 after 180 s, saying 3m0s", w.Code, w.Header().Get("Retry-After"))
	}
	if n := s.failedLogins(); n != 5 {
		t.Errorf("audit rows of failed logins = %d, want 5", n)
	}
	s.setNow(t0.Add(3 * time.Minute))
	if w := s.login("ana", "pw-ana", "192.0.2.1"); w.Code != http.StatusSeeOther {
		t.Errorf("right password after the wait = %d, want 303", w.Code)
	}
}

// TestLoginThrottledPerAddress: one address guessing many accounts is throttled too, and
// another address is not.
func TestLoginThrottledPerAddress(t *testing.T) {
	s := newServer(t)
	for i := range 20 {
		if w := s.login("user"+string(rune('a'+i)), "guess", "198.51.100.7"); w.Code != http.StatusUnauthorized {
			t.Fatalf("guess %d = %d, want 401", i+1, w.Code)
		}
	}
	if w := s.login("someone", "guess", "198.51.100.7"); w.Code != http.StatusTooManyRequests {
		t.Errorf("21st guess from one address = %d, want 429", w.Code)
	}
	if w := s.login("someone", "guess", "198.51.100.8"); w.Code != http.StatusUnauthorized {
		t.Errorf("a guess from another address = %d, want 401", w.Code)
	}
}
