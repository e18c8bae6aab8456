package simgpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"time"

	"kashi/api"
)

// traffic is a simulated inference server's requests, arriving at random (a Poisson stream
// of rps a second in virtual time), each counted on its ModelServer page, which it serves on
// the node's loopback at the assignment's metrics port as a real server would.
type traffic struct {
	model *ModelServer
	srv   *http.Server
	rng   *rand.Rand
	rps   float64
	ttft  float64 // median seconds
	next  time.Time
}

// serveModel starts a simulated server's page on 127.0.0.1:<metrics port>, with its health
// path answering 200 when the assignment has one; an address in use fails the start, as it
// would a real server.
func serveModel(a api.Assignment, t simTask, now time.Time) (*traffic, error) {
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", a.MetricsPort))
	if err != nil {
		return nil, err
	}
	m := NewModelServer(fmt.Sprintf("sim-%d", a.TaskID))
	mux := http.NewServeMux()
	mux.Handle("GET "+a.MetricsPath, m)
	if a.HealthPath != "" && a.HealthPath != a.MetricsPath {
		mux.HandleFunc("GET "+a.HealthPath, func(http.ResponseWriter, *http.Request) {}) // 200: it serves while it runs
	}
	tr := &traffic{model: m, srv: &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second},
		rng: rand.New(rand.NewPCG(uint64(a.TaskID), 0x7365727665)), rps: t.rps, ttft: t.ttft.Seconds()}
	tr.next = now.Add(tr.gap())
	go tr.srv.Serve(ln)
	return tr, nil
}

// gap is the time to the next request.
func (t *traffic) gap() time.Duration {
	return time.Duration(t.rng.ExpFloat64() / t.rps * float64(time.Second))
}

// until counts the requests that arrived up to now: time to first token log-normal about
// the median, a few hundred tokens in and out, 20 ms a generated token.
func (t *traffic) until(now time.Time) {
	running := 0
	for !t.next.After(now) {
		ttft := t.ttft * math.Exp(0.5*t.rng.NormFloat64())
		out := 50 + t.rng.IntN(400)
		t.model.Observe(ttft, ttft+0.02*float64(out), 200+t.rng.IntN(1800), out)
		t.next = t.next.Add(t.gap())
		running++
	}
	t.model.SetRunning(running)
}

func (t *traffic) close() { t.srv.Close() }
