package web

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/api"
)

// Overload limits. Past them the server answers 503 with Retry-After at once instead of
// letting requests pile up until clients time out: agents keep their samples and retry,
// scripts retry with their Idempotency-Key.
const (
	// maxInFlight is how many requests are served at once.
	maxInFlight = 256
	// admitWait is how long a request past maxInFlight waits for a place.
	admitWait = time.Second
	// requestBudget bounds one request's time, queueing for the database included.
	requestBudget = 10 * time.Second
	// retryAfter is the Retry-After a busy answer carries, in seconds.
	retryAfter = 1
)

// busyBody is the JSON of a busy answer.
var busyBody = api.Error{Error: "server busy, retry after " + strconv.Itoa(retryAfter) + " s"}

// admit lets at most limit requests in at once and bounds each one's time; a request that
// finds no place within wait is answered 503.
func admit(limit int, wait time.Duration) echo.MiddlewareFunc {
	slots := make(chan struct{}, limit)
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			select {
			case slots <- struct{}{}:
			default:
				t := time.NewTimer(wait)
				select {
				case slots <- struct{}{}:
					t.Stop()
				case <-t.C:
					return busy()
				case <-c.Request().Context().Done():
					t.Stop()
					return busy()
				}
			}
			defer func() { <-slots }()
			ctx, cancel := context.WithTimeout(c.Request().Context(), requestBudget)
			defer cancel()
			c.SetRequest(c.Request().WithContext(ctx))
			return next(c)
		}
	}
}

// busy is the 503 every overload answer gives.
func busy() error {
	return echo.NewHTTPError(http.StatusServiceUnavailable, busyBody)
}
