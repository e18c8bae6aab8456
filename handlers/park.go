package handlers

import (
	"context"

	"github.com/labstack/echo/v4"
)

// Parker is what the server's admission gives a request that may wait on an event (an
// agent's long poll): Park gives its place among the requests served at once back while it
// waits, and Unpark takes one again to answer (an error: the server is busy), so that
// thousands of waiting requests never crowd out the working ones.
type Parker interface {
	Park()
	Unpark(ctx context.Context) error
}

// ParkerKey is the echo context key under which the admission stores a request's Parker.
const ParkerKey = "kashi.parker"

// Park gives the request's admission place back while it waits, and returns the function
// that takes one again before it answers. Without an admission (tests of a bare router) both
// do nothing.
func Park(c echo.Context) (unpark func() error) {
	p, ok := c.Get(ParkerKey).(Parker)
	if !ok {
		return func() error { return nil }
	}
	p.Park()
	return func() error { return p.Unpark(c.Request().Context()) }
}
