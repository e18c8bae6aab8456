package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
	"kashi/phrase"
	"kashi/views"
)

// statusClientClosed is the status the request log records for a request whose client went
// away before it was answered (nginx's 499; never sent, as nobody is there to read it).
const statusClientClosed = 499

// errorHandler answers every error: JSON for the API, the error page otherwise. Unexpected
// errors are logged and shown as a plain 500 without details.
func errorHandler(log *slog.Logger) echo.HTTPErrorHandler {
	return func(err error, c echo.Context) {
		if c.Response().Committed {
			return
		}
		status, body := http.StatusInternalServerError, api.Error{Error: http.StatusText(http.StatusInternalServerError)}
		var he *echo.HTTPError
		if errors.As(err, &he) {
			status = he.Code
			switch m := he.Message.(type) {
			case api.Error:
				body = m
			case string:
				body = api.Error{Error: m}
			default:
				body = api.Error{Error: fmt.Sprint(m)}
			}
		} else if handlers.Busy(err) {
			status, body = http.StatusServiceUnavailable, busyBody
		} else if errors.Is(err, context.Canceled) && c.Request().Context().Err() != nil {
			// The client went away (an agent killed, a browser closed): nothing failed here,
			// and nobody reads the answer. The request log says 499, as nginx does, not 500.
			c.Response().WriteHeader(statusClientClosed)
			return
		} else {
			log.Error("request failed", "method", c.Request().Method, "path", c.Request().URL.Path, "err", err)
		}
		if status == http.StatusServiceUnavailable || status == http.StatusTooManyRequests {
			c.Response().Header().Set("Retry-After", strconv.Itoa(retryAfter))
		}
		if strings.HasPrefix(c.Request().URL.Path, "/api/") || c.Request().URL.Path == "/healthz" {
			err = c.JSON(status, body)
		} else if c.Request().Method == http.MethodHead {
			err = c.NoContent(status)
		} else {
			// The page is written even when the request's time is up (a panic unwinds the
			// admission's deadline first): its context only carries values to the page.
			c.SetRequest(c.Request().WithContext(context.WithoutCancel(c.Request().Context())))
			err = handlers.Render(c, status, views.ErrorPage(handlers.Locale(c), status, pageMessage(c, err, status, body)))
		}
		if err != nil {
			log.Error("writing error response", "err", err)
		}
	}
}

// pageMessage is what the error page says under its status, in the page's language: a bad
// field's message through the catalogs; a handler's own text, which it wrote in the page's
// language (handlers.PageError); any other message, the API's English, on English pages
// only; nothing when it would only repeat the status.
func pageMessage(c echo.Context, err error, status int, body api.Error) string {
	l := handlers.Locale(c)
	if msg, ok := handlers.FieldProblem(l, err); ok {
		return msg
	}
	if msg, ok := handlers.PageText(err); ok {
		return msg
	}
	if body.Error == http.StatusText(status) || l.Lang != phrase.LangEN {
		return ""
	}
	return body.Error
}
