// Sign-in through the organisation's directory (#38): a browser that has not logged in yet.

package webtest

import "net/http"

// Browser is a browser from addr that has not logged in: it keeps the cookies the answers
// set, as a Session does.
func (s *Server) Browser(addr string) *Session {
	return &Session{s: s, addr: addr, cookies: map[string]*http.Cookie{}}
}

// SetCookie gives the browser a cookie, as another browser's copied in.
func (b *Session) SetCookie(name, value string) {
	b.cookies[name] = &http.Cookie{Name: name, Value: value}
}
