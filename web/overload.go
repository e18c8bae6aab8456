package web

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
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
// finds no place within wait is answered 503. A long poll (longPolls) has its wait added to
// its time, and gives its place back while it waits (handlers.Park).
func admit(limit int, wait time.Duration) echo.MiddlewareFunc {
	slots := make(chan struct{}, limit)
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			p := &place{slots: slots, wait: wait}
			if err := p.Unpark(c.Request().Context()); err != nil {
				return err
			}
			defer p.Park()
			budget := requestBudget
			if longPolls[c.Request().Method+" "+c.Path()] {
				budget += api.MaxAssignmentsWait
				c.Set(handlers.ParkerKey, p)
			}
			ctx, cancel := context.WithTimeout(c.Request().Context(), budget)
			defer cancel()
			c.SetRequest(c.Request().WithContext(ctx))
			return next(c)
		}
	}
}

// longPolls are the routes that wait for an event, parked while they wait.
var longPolls = map[string]bool{http.MethodGet + " " + api.PathAssignments: true}

// place is a request's place among those served at once: a handlers.Parker.
type place struct {
	slots chan struct{}
	wait  time.Duration
	held  bool
}

// Park gives the place back, if held.
func (p *place) Park() {
	if p.held {
		<-p.slots
		p.held = false
	}
}

// Unpark takes a place, waiting up to the admission's wait for one; past it the answer is
// busy.
func (p *place) Unpark(ctx context.Context) error {
	if p.held {
		return nil
	}
	select {
	case p.slots <- struct{}{}:
	default:
		t := time.NewTimer(p.wait)
		defer t.Stop()
		select {
		case p.slots <- struct{}{}:
		case <-t.C:
			return busy()
		case <-ctx.Done():
			return busy()
		}
	}
	p.held = true
	return nil
}

// busy is the 503 every overload answer gives.
func busy() error {
	return echo.NewHTTPError(http.StatusServiceUnavailable, busyBody)
}
