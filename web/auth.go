package web

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"kashi/api"
	"kashi/handlers"
	"kashi/handlers/people"
)

// identify finds who makes each request — an API token (Authorization: Bearer ka_…) or the
// session cookie — and stores the Principal. A bad token is refused; a stale session cookie
// is cleared and the request goes on without a login.
func identify(h *Areas) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if strings.HasPrefix(c.Request().URL.Path, "/api/v1/agent/") {
				return next(c) // node tokens, checked by NodeAuth
			}
			if c.Request().URL.Path == "/metrics" {
				return next(c) // the scrape token, checked by the metrics page
			}
			p, err := h.People.Identify(c)
			if err != nil {
				return err
			}
			handlers.SetPrincipal(c, p)
			return next(c)
		}
	}
}

// require refuses a request that does not meet a route's access level: 401 without a login
// (pages redirect to the login form), 403 with one, and 403 for a read-only token that tries
// to change something.
func require(a handlers.Access) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		if a == handlers.Public {
			return next
		}
		return func(c echo.Context) error {
			p := handlers.Who(c)
			switch {
			case p == nil && isPage(c):
				if c.Request().Header.Get("HX-Request") == "true" {
					c.Response().Header().Set("HX-Redirect", "/login")
					return c.NoContent(http.StatusUnauthorized)
				}
				next := c.Request().URL.RequestURI()
				return c.Redirect(http.StatusSeeOther, "/login?next="+url.QueryEscape(next))
			case p == nil:
				return echo.NewHTTPError(http.StatusUnauthorized, api.Error{Error: "log in or send an API token"})
			case !p.Allows(a):
				return echo.NewHTTPError(http.StatusForbidden, api.Error{Error: "your role may not do this"})
			case p.ReadOnly && c.Request().Method != http.MethodGet && c.Request().Method != http.MethodHead:
				return echo.NewHTTPError(http.StatusForbidden, api.Error{Error: "this token is read-only"})
			}
			return next(c)
		}
	}
}

// sessionOnly refuses a request that comes with an API token (403): a password is changed
// from a browser session, so that a token, which scripts keep in files, cannot take over
// its user's account.
func sessionOnly(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if p := handlers.Who(c); p != nil && p.TokenID != 0 {
			return echo.NewHTTPError(http.StatusForbidden, api.Error{Error: "change a password from a browser session, not with an API token"})
		}
		return next(c)
	}
}

// isPage reports whether the request is for a page rather than the JSON API.
func isPage(c echo.Context) bool { return !strings.HasPrefix(c.Request().URL.Path, "/api/") }

// csrf protects every state-changing request that rides on the session cookie: a cross-site
// or same-site request (Sec-Fetch-Site) is refused outright, and every other one must carry
// the token from the _csrf cookie in the _csrf form field or the X-CSRF-Token header. Requests
// authenticated by a bearer token carry no ambient credentials and skip the check.
func csrf(secure bool) []echo.MiddlewareFunc {
	fetchSite := func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			r := c.Request()
			if !safeMethod(r.Method) && !bearerRequest(c) {
				switch r.Header.Get(echo.HeaderSecFetchSite) {
				case "cross-site", "same-site":
					return echo.NewHTTPError(http.StatusForbidden, api.Error{Error: "cross-site request refused"})
				}
			}
			// The token is required as well: echo's middleware would otherwise let a
			// same-origin request through on the header alone.
			r.Header.Del(echo.HeaderSecFetchSite)
			return next(c)
		}
	}
	ck := handlers.CSRFCookie("", secure)
	token := middleware.CSRFWithConfig(middleware.CSRFConfig{
		Skipper:        bearerRequest,
		TokenLookup:    "form:" + ck.Name + ",header:X-CSRF-Token",
		CookieName:     ck.Name,
		CookiePath:     ck.Path,
		CookieHTTPOnly: ck.HttpOnly,
		CookieSecure:   ck.Secure,
		CookieSameSite: ck.SameSite,
		CookieMaxAge:   ck.MaxAge,
		ContextKey:     handlers.CSRFKey,
		ErrorHandler: func(err error, c echo.Context) error {
			if !isPage(c) && !hasSession(c) {
				// A JSON client with no credentials at all: the token is what it lacks.
				return echo.NewHTTPError(http.StatusUnauthorized, api.Error{Error: "send an API token: Authorization: Bearer ka_…"})
			}
			return echo.NewHTTPError(http.StatusForbidden, api.Error{Error: "missing or wrong CSRF token: reload the page"})
		},
	})
	return []echo.MiddlewareFunc{fetchSite, token}
}

func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// hasSession reports whether the request carries a session cookie.
func hasSession(c echo.Context) bool {
	ck, err := c.Cookie(people.SessionCookie)
	return err == nil && ck.Value != ""
}

// bearerRequest reports whether the request authenticates with a bearer token.
func bearerRequest(c echo.Context) bool {
	return strings.HasPrefix(c.Request().Header.Get(echo.HeaderAuthorization), "Bearer ")
}
