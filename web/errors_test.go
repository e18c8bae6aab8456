package web

import (
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
