package handlers

import (
	"crypto/rand"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// CSRFKey is where the CSRF middleware leaves the request's token for forms.
const CSRFKey = "kashi.csrf"

// csrfMaxAge is how long a browser keeps its CSRF token: a day, as echo's middleware keeps it.
const csrfMaxAge = 24 * 60 * 60

// CSRFCookie is the cookie that holds a browser's CSRF token: the CSRF middleware (web) sets
// it with these attributes, and RenewCSRF replaces it. secure marks it Secure.
func CSRFCookie(token string, secure bool) *http.Cookie {
	return &http.Cookie{Name: "_csrf", Value: token, Path: "/", HttpOnly: true, Secure: secure,
		SameSite: http.SameSiteLaxMode, MaxAge: csrfMaxAge}
}

// RenewCSRF gives the browser a new CSRF token instead of the one this answer would keep, and
// the forms this request renders use it. A login renews it: a token planted in the browser,
// or read, before the login is worthless after it.
func RenewCSRF(c echo.Context, secure bool) {
	token := rand.Text()
	ck := CSRFCookie(token, secure)
	h := c.Response().Header()
	kept := []string{}
	for _, v := range h.Values(echo.HeaderSetCookie) {
		if !strings.HasPrefix(v, ck.Name+"=") {
			kept = append(kept, v)
		}
	}
	h[echo.HeaderSetCookie] = kept
	c.SetCookie(ck)
	c.Set(CSRFKey, token)
}
