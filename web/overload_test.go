package web

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
	"kashi/models"
)

// Past its places the server answers 503 with Retry-After at once, and an overloaded store
// is a 503 too, never a 500.
func TestOverloadAnswers503(t *testing.T) {
	e := echo.New()
	e.HTTPErrorHandler = errorHandler(slog.New(slog.DiscardHandler))
	e.Use(admit(1, 0))
	entered, release := make(chan struct{}), make(chan struct{})
	e.GET("/api/v1/slow", func(c echo.Context) error {
		close(entered)
		<-release
		return c.NoContent(http.StatusNoContent)
	})
	e.GET("/api/v1/busy", func(c echo.Context) error { return fmt.Errorf("models: x: %w", models.ErrBusy) })

	slow := make(chan int)
	go func() {
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v1/slow", nil))
		slow <- rec.Code
	}()
	<-entered
	type answer struct {
		Code       int
		RetryAfter string
		Body       string
	}
	get := func(path string) answer {
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		return answer{rec.Code, rec.Header().Get("Retry-After"), rec.Body.String()}
	}
	want := answer{http.StatusServiceUnavailable, "1", `{"error":"server busy, retry after 1 s"}` + "\n"}
	if diff := cmp.Diff(want, get("/api/v1/slow")); diff != "" {
		t.Errorf("request past the limit (-want +got):\n%s", diff)
	}
	close(release)
	if code := <-slow; code != http.StatusNoContent {
		t.Errorf("admitted request = %d, want 204", code)
	}
	if diff := cmp.Diff(want, get("/api/v1/busy")); diff != "" {
		t.Errorf("busy store (-want +got):\n%s", diff)
	}
}

// An agent's long poll gives its place back while it waits: with one place, another
// request is served beside a waiting long poll, which takes a place again to answer.
func TestLongPollWaitsOutsideThePlaces(t *testing.T) {
	e := echo.New()
	e.HTTPErrorHandler = errorHandler(slog.New(slog.DiscardHandler))
	e.Use(admit(1, 0))
	parked, release := make(chan struct{}), make(chan struct{})
	e.GET(api.PathAssignments, func(c echo.Context) error {
		unpark := handlers.Park(c)
		close(parked)
		<-release
		if err := unpark(); err != nil {
			return err
		}
		return c.NoContent(http.StatusNoContent)
	})
	e.GET("/api/v1/other", func(c echo.Context) error { return c.NoContent(http.StatusNoContent) })
	poll := make(chan int)
	go func() {
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, api.PathAssignments, nil))
		poll <- rec.Code
	}()
	<-parked
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v1/other", nil))
	if rec.Code != http.StatusNoContent {
		t.Errorf("a request beside a waiting long poll = %d, want 204", rec.Code)
	}
	close(release)
	if code := <-poll; code != http.StatusNoContent {
		t.Errorf("the long poll = %d, want 204", code)
	}
}
