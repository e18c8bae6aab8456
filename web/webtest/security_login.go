// Logging in through the login form, and the failed logins the audit log counts.

package webtest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"

	"kashi/models"
)

// Login posts the login form from addr through the router, with a CSRF token, and returns
// the answer.
func (s *Server) Login(name, password, addr string) *httptest.ResponseRecorder {
	s.Tb.Helper()
	get := httptest.NewRecorder()
	s.E.ServeHTTP(get, httptest.NewRequest(http.MethodGet, "/login", nil))
	var csrf *http.Cookie
	for _, ck := range get.Result().Cookies() {
		if ck.Name == "_csrf" {
			csrf = ck
		}
	}
	if csrf == nil {
		s.Tb.Fatal("GET /login set no _csrf cookie")
	}
	form := url.Values{"username": {name}, "password": {password}, "_csrf": {csrf.Value}}
	r := httptest.NewRequest(http.MethodPost, "/login", strings.NewReader(form.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.AddCookie(csrf)
	r.RemoteAddr = addr + ":40000"
	w := httptest.NewRecorder()
	s.E.ServeHTTP(w, r)
	return w
}

// FailedLogins is how many failed logins the audit log holds.
func (s *Server) FailedLogins() int {
	s.Tb.Helper()
	es, err := s.Store.AuditLog(context.Background(), models.AuditFilter{Limit: 1000})
	if err != nil {
		s.Tb.Fatal(err)
	}
	n := 0
	for _, e := range es {
		if e.Action == models.AuditLoginFailed {
			n++
		}
	}
	return n
}
