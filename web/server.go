// Package web sets up the HTTP server: routes, middleware, the error page and static files.
package web

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"kashi/handlers"
	"kashi/handlers/people"
	"kashi/phrase"
)

// New returns the echo server with every route of h. secure marks cookies Secure (Kashi is
// served over https).
func New(h *Areas, secure bool, log *slog.Logger) *echo.Echo {
	return build(h, secure, log, defaultLimits)
}

// build is New within lim. A request's body is read (bounded) before the request is
// admitted, so that a slow body never holds a place.
func build(h *Areas, secure bool, log *slog.Logger, lim limits) *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = errorHandler(log)
	e.Use(middleware.Recover())
	e.Use(timed)
	e.Use(middleware.SecureWithConfig(middleware.SecureConfig{
		XSSProtection: "0", ContentTypeNosniff: "nosniff", XFrameOptions: "DENY",
		ReferrerPolicy:        "same-origin",
		ContentSecurityPolicy: "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'",
	}))
	if secure {
		e.Use(hsts)
	}
	e.Use(compress())
	e.Use(locale)
	e.Use(bounded(lim))
	e.Use(admit(lim.inFlight, admitWait))
	e.Use(requestLog(log))
	e.Use(csrf(secure)...)
	e.Use(identify(h))
	routes(e, h)
	return e
}

// locale picks the page language from the cookie or Accept-Language.
func locale(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		cookie := ""
		if ck, err := c.Cookie(people.LangCookie); err == nil {
			cookie = ck.Value
		}
		handlers.SetLocale(c, phrase.Negotiate(cookie, c.Request().Header.Get("Accept-Language")))
		return next(c)
	}
}

// requestLog logs each request at debug level, and errors at warn, without query strings or
// headers (they may carry tokens).
func requestLog(log *slog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			start := time.Now()
			err := next(c)
			if err != nil {
				c.Error(err)
			}
			status := c.Response().Status
			level := slog.LevelDebug
			if status >= http.StatusInternalServerError {
				level = slog.LevelWarn
			}
			log.Log(c.Request().Context(), level, "http", "method", c.Request().Method, "path", c.Request().URL.Path,
				"status", status, "dur", time.Since(start).Round(time.Microsecond))
			return nil
		}
	}
}
