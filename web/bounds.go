package web

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
)

// Bounded reads. A request's body is read whole, within its route's size limit and a
// deadline, before the request takes one of the admission places (overload.go): a client that
// sends its body slowly holds its own connection until the deadline, never a place that
// everyone's requests need. The bodies held in memory are bounded per client address and in
// all. The routes anyone may call that cost the server most, logins (a password hash) and
// agent registrations (a write), are limited per client address as well.
const (
	// defaultBody bounds a request's body unless bodyLimits names its route: the largest
	// form or JSON that pages and scripts send (a task, 256 KiB).
	defaultBody = 256 << 10
	// traceBody bounds the calibration's trace upload.
	traceBody = 8 << 20
	// bodyGrace and bodyRate make a body's deadline: bodyGrace after its first read, plus a
	// second for every bodyRate bytes it declares (or, when it declares none, may hold):
	// 12 s for 256 KiB, 74 s for 8 MiB.
	bodyGrace = 10 * time.Second
	bodyRate  = 128 << 10
	// clientBodyMemory is how many bytes of bodies one client address may have in memory at
	// once; bodyMemory all clients together.
	clientBodyMemory = 16 << 20
	bodyMemory       = 256 << 20
	// perClient is how many logins, and how many agent registrations, one client address may
	// have in flight at once.
	perClient = 16
)

// The connection's limits (Server).
const (
	// headerTimeout bounds reading a request's headers.
	headerTimeout = 10 * time.Second
	// idleTimeout closes a kept-alive connection that sends no request for this long.
	idleTimeout = 2 * time.Minute
	// maxHeaderBytes bounds a request's headers.
	maxHeaderBytes = 64 << 10
)

// bodyLimits are the routes whose bodies may be larger than defaultBody: agents' sample
// batches (a spool sent after an outage) and registrations, and the calibration's trace.
var bodyLimits = map[string]int64{
	http.MethodPost + " " + api.PathSamples:  api.MaxBodyBytes,
	http.MethodPost + " " + api.PathRegister: api.MaxBodyBytes,
	http.MethodPost + " /calibrate":          traceBody,
}

// perClientRoutes are the routes limited to perClient requests in flight per client address.
var perClientRoutes = map[string]bool{
	http.MethodPost + " /login":              true,
	http.MethodPost + " " + api.PathRegister: true,
}

// Server returns the HTTP server of h with Kashi's connection limits: headers within
// headerTimeout and maxHeaderBytes, idle connections closed after idleTimeout. Bodies get
// their deadline per request (bounded), and answers none: a download to a slow reader may
// take long.
func Server(h http.Handler) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: headerTimeout, IdleTimeout: idleTimeout, MaxHeaderBytes: maxHeaderBytes}
}

// limits are the server's bounds; New uses defaultLimits, tests smaller ones.
type limits struct {
	// inFlight is how many requests are served at once (admit).
	inFlight int
	// bodyGrace is the fixed part of a body's deadline.
	bodyGrace time.Duration
	// clientMemory and memory bound the bytes of bodies in memory, per client address and
	// in all.
	clientMemory, memory int64
}

var defaultLimits = limits{inFlight: maxInFlight, bodyGrace: bodyGrace, clientMemory: clientBodyMemory, memory: bodyMemory}

// bounded reads each request's body within its limits before the request goes on to be
// admitted, and holds the per-client limit of the routes that have one.
func bounded(lim limits) echo.MiddlewareFunc {
	inFlight := &clientCounts{n: map[string]int{}}
	mem := &heldBodies{byAddr: map[string]int64{}, clientMax: lim.clientMemory, max: lim.memory}
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			r := c.Request()
			route, addr := r.Method+" "+c.Path(), handlers.ClientAddr(c)
			if perClientRoutes[route] {
				key := route + " " + addr
				if !inFlight.enter(key) {
					return echo.NewHTTPError(http.StatusTooManyRequests, api.Error{Error: "too many of these requests from your address at once"})
				}
				defer inFlight.leave(key)
			}
			if r.Body == nil || r.Body == http.NoBody {
				return next(c)
			}
			limit := int64(defaultBody)
			if n, ok := bodyLimits[route]; ok {
				limit = n
			}
			held := &heldReader{mem: mem, addr: addr}
			defer func() { mem.give(addr, held.n) }()
			if err := readBody(c, limit, lim.bodyGrace, held); err != nil {
				return err
			}
			return next(c)
		}
	}
}

// readBody reads the request's body into memory, accounted by held, and puts it back in
// the request. A body larger than limit, one that does not arrive by its deadline, one past
// the memory's bounds, or a broken one is answered at once and its connection closed.
func readBody(c echo.Context, limit int64, grace time.Duration, held *heldReader) error {
	r, w := c.Request(), c.Response()
	if r.ContentLength > limit {
		return refuseBody(c, tooLarge(limit))
	}
	declared := r.ContentLength
	if declared < 0 {
		declared = limit
	}
	rc := http.NewResponseController(w)
	// A recorder in tests cannot take deadlines; a real connection always can.
	_ = rc.SetReadDeadline(time.Now().Add(grace + time.Duration(declared/bodyRate)*time.Second))
	held.r = http.MaxBytesReader(w, r.Body, limit)
	body, err := io.ReadAll(held)
	if err != nil {
		var tooBig *http.MaxBytesError
		switch {
		case errors.As(err, &tooBig):
			err = tooLarge(limit)
		case errors.Is(err, os.ErrDeadlineExceeded):
			err = echo.NewHTTPError(http.StatusRequestTimeout, api.Error{Error: "the body did not arrive in time"})
		case errors.Is(err, errClientMemory):
			err = echo.NewHTTPError(http.StatusTooManyRequests, api.Error{Error: "too many request bodies from your address at once"})
		case errors.Is(err, errMemory):
			err = busy()
		default:
			err = echo.NewHTTPError(http.StatusBadRequest, api.Error{Error: "the body could not be read"})
		}
		return refuseBody(c, err)
	}
	// Past the body, no deadline: net/http reads on in the background to see the client
	// go, and a deadline passing then would cancel the request.
	_ = rc.SetReadDeadline(time.Time{})
	r.Body = io.NopCloser(bytes.NewReader(body))
	return nil
}

// refuseBody answers err and closes the connection without reading the rest of the body.
func refuseBody(c echo.Context, err error) error {
	c.Response().Header().Set(echo.HeaderConnection, "close")
	_ = http.NewResponseController(c.Response()).SetReadDeadline(time.Unix(1, 0))
	return err
}

// tooLarge is the answer to a body larger than limit bytes.
func tooLarge(limit int64) error {
	return echo.NewHTTPError(http.StatusRequestEntityTooLarge, api.Error{Error: fmt.Sprintf("body is larger than %d bytes", limit)})
}

// clientCounts counts the requests in flight per key.
type clientCounts struct {
	mu sync.Mutex
	n  map[string]int
}

// enter counts one more request of key, or reports false when key has perClient already.
func (cc *clientCounts) enter(key string) bool {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if cc.n[key] >= perClient {
		return false
	}
	cc.n[key]++
	return true
}

// leave counts one request of key less.
func (cc *clientCounts) leave(key string) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if cc.n[key]--; cc.n[key] <= 0 {
		delete(cc.n, key)
	}
}

// The memory's bounds, as heldReader reports them.
var (
	errClientMemory = errors.New("web: the client's bodies fill its share of memory")
	errMemory       = errors.New("web: bodies fill the memory they may take")
)

// heldBodies accounts the bytes of bodies in memory, per client address and in all.
type heldBodies struct {
	mu     sync.Mutex
	all    int64
	byAddr map[string]int64
	// clientMax and max are the bounds: per client address and in all.
	clientMax, max int64
}

// take accounts n more bytes of addr's, or none and an error when a bound would be passed.
func (m *heldBodies) take(addr string, n int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case m.byAddr[addr]+n > m.clientMax:
		return errClientMemory
	case m.all+n > m.max:
		return errMemory
	}
	m.byAddr[addr] += n
	m.all += n
	return nil
}

// give returns n bytes of addr's.
func (m *heldBodies) give(addr string, n int64) {
	if n == 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.all -= n
	if m.byAddr[addr] -= n; m.byAddr[addr] <= 0 {
		delete(m.byAddr, addr)
	}
}

// heldReader reads r, accounting what it read in mem as addr's: n bytes so far.
type heldReader struct {
	r    io.Reader
	mem  *heldBodies
	addr string
	n    int64
}

func (h *heldReader) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	if n > 0 {
		if merr := h.mem.take(h.addr, int64(n)); merr != nil {
			return 0, merr
		}
		h.n += int64(n)
	}
	return n, err
}
