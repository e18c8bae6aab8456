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

// Session is a browser logged in through the login form, from one address: it keeps its
// cookies and sends them, and its forms post the CSRF token back. It sends no API token.
type Session struct {
	s       *Server
	addr    string
	cookies map[string]*http.Cookie
}

// LogIn logs name in with password from addr and returns the session; the login must
// succeed.
func (s *Server) LogIn(name, password, addr string) *Session {
	s.Tb.Helper()
	b := &Session{s: s, addr: addr, cookies: map[string]*http.Cookie{}}
	b.Get("/login")
	if w := b.Form("/login", url.Values{"username": {name}, "password": {password}}); w.Code != http.StatusSeeOther {
		s.Tb.Fatalf("log in %s = %d, want 303", name, w.Code)
	}
	return b
}

// Get sends a GET with the session's cookies and optional header pairs.
func (b *Session) Get(path string, hdr ...string) *httptest.ResponseRecorder {
	b.s.Tb.Helper()
	r := httptest.NewRequest(http.MethodGet, path, nil)
	for k, v := range Pairs(hdr) {
		r.Header.Set(k, v)
	}
	return b.do(r)
}

// Form posts an HTML form with the session's cookies and its CSRF token.
func (b *Session) Form(path string, values url.Values) *httptest.ResponseRecorder {
	b.s.Tb.Helper()
	v := url.Values{"_csrf": {b.Cookie("_csrf")}}
	for k, vs := range values {
		v[k] = vs
	}
	r := httptest.NewRequest(http.MethodPost, path, strings.NewReader(v.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return b.do(r)
}

// Cookie is the value of the session's cookie name ("" without one).
func (b *Session) Cookie(name string) string {
	if ck, ok := b.cookies[name]; ok {
		return ck.Value
	}
	return ""
}

// do sends r from the session's address with its cookies and keeps the cookies the answer
// sets (a cookie set to expire is dropped).
func (b *Session) do(r *http.Request) *httptest.ResponseRecorder {
	r.RemoteAddr = b.addr + ":40000"
	for _, ck := range b.cookies {
		r.AddCookie(&http.Cookie{Name: ck.Name, Value: ck.Value})
	}
	w := httptest.NewRecorder()
	b.s.E.ServeHTTP(w, r)
	for _, ck := range w.Result().Cookies() {
		if ck.MaxAge < 0 || ck.Value == "" {
			delete(b.cookies, ck.Name)
		} else {
			b.cookies[ck.Name] = ck
		}
	}
	return w
}
