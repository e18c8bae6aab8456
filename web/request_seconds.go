package web

import (
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

// requestSeconds is the server's own time of each request, from the router's first
// middleware to the answer written, by method and route (the route's pattern, so that the
// series are as many as the routes a server is asked, whatever the paths asked). A load
// generator on the same machine times the request from outside, its own waits for a core
// included; the two side by side tell the server's part. The buckets are fine around the
// targets the load test judges (50 ms for an agent's samples, 100 ms for a submit, 150 ms for
// the board) and reach a long poll's wait.
var requestSeconds = promauto.NewHistogramVec(prometheus.HistogramOpts{
	Name: "kashi_http_request_seconds", Help: "Time the server took to answer a request, by method and route pattern.",
	Buckets: []float64{0.0025, 0.005, 0.01, 0.02, 0.03, 0.04, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.5, 1, 2, 5, 10, 40}},
	[]string{"method", "route"})

// unmatchedRoute is the route label of a request no route matched.
const unmatchedRoute = "unmatched"

// timed observes each request's time in requestSeconds.
func timed(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		err := next(c)
		if err != nil {
			c.Error(err) // the answer written, so that its time is counted
		}
		route := c.Path()
		if route == "" {
			route = unmatchedRoute
		}
		requestSeconds.WithLabelValues(c.Request().Method, route).Observe(time.Since(start).Seconds())
		return nil
	}
}
