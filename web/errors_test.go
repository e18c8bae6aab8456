package web

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

// A page whose handler panics is answered with the 500 error page, not an empty 200: the
// panic unwinds the admission deadline first, and the page was rendered under its canceled context.
func TestPagePanicIs500(t *testing.T) {
	e := echo.New()
	e.HTTPErrorHandler = errorHandler(slog.New(slog.DiscardHandler))
	e.Use(middleware.RecoverWithConfig(middleware.RecoverConfig{DisablePrintStack: true}))
	e.Use(admit(1, time.Second))
	e.GET("/panics", func(echo.Context) error { panic("boom") })
	w := httptest.NewRecorder()
	e.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/panics", nil))
	if w.Code != http.StatusInternalServerError || !strings.Contains(w.Body.String(), "<html") {
		t.Errorf("GET /panics = %d %q, want 500 with the error page", w.Code, w.Body)
	}
}

// A request whose client went away is recorded as 499, not as a failure: no "request failed"
// error and no 500 in the request log (an agent killed mid-request is not a server fault).
// A handler's own canceled work on a live request is still an error, logged with its cause.
func TestClientGoneIs499(t *testing.T) {
	var logged strings.Builder
	log := slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelDebug}))
	e := echo.New()
	e.HTTPErrorHandler = errorHandler(log)
	e.Use(requestLog(log))
	e.GET("/gone", func(c echo.Context) error { return c.Request().Context().Err() })
	e.GET("/own", func(echo.Context) error { return fmt.Errorf("reading: %w", context.Canceled) })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	w := httptest.NewRecorder()
	e.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/gone", nil).WithContext(ctx))
	if w.Code != statusClientClosed || strings.Contains(logged.String(), "level=ERROR") || !strings.Contains(logged.String(), "status=499") {
		t.Errorf("a gone client's request = %d, log:\n%s\nwant 499 at debug, no error", w.Code, logged.String())
	}
	logged.Reset()
	w = httptest.NewRecorder()
	e.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/own", nil))
	if w.Code != http.StatusInternalServerError || !strings.Contains(logged.String(), `msg="request failed"`) {
		t.Errorf("a handler's own cancel on a live request = %d, log:\n%s\nwant 500, logged", w.Code, logged.String())
	}
}
