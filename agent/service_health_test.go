package agent

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"kashi/api"
)

// healthServer answers /health with the status the test sets and counts the probes.
type healthServer struct {
	status atomic.Int32
	probes atomic.Int32
}

func (h *healthServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/health" {
		http.NotFound(w, r)
		return
	}
	h.probes.Add(1)
	w.WriteHeader(int(h.status.Load()))
}

// runProbed runs an agent, configured by configure, on one service replica (task 7) whose
// health path answers status until the test changes it.
func runProbed(t *testing.T, status int, configure func(*Config)) (*healthServer, *fakeServer, *fakeRunner) {
	h := &healthServer{}
	h.status.Store(int32(status))
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	u, _ := url.Parse(s.URL)
	port, _ := strconv.Atoi(u.Port())
	f := newFakeServer(t)
	f.with(func() {
		f.assignments = []api.Assignment{{TaskID: 7, GPUUUIDs: []string{"GPU-x"}, Command: []string{"serve"},
			MetricsPort: port, MetricsPath: "/metrics", HealthPath: "/health", Restart: true}}
	})
	r := &fakeRunner{}
	a := newTestAgent(t, f, r)
	configure(&a.cfg)
	runAgent(t, a)
	return h, f, r
}

// waitUntil polls cond until it holds or 5 s have passed.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
	}
}

// TestHealthProbeRestartsAHungReplica: a replica that answered healthy and then fails its
// probe three times in a row is stopped and started again, as if it had exited; the server
// hears no exit.
func TestHealthProbeRestartsAHungReplica(t *testing.T) {
	h, f, r := runProbed(t, http.StatusOK, func(c *Config) { c.RestartBackoff = time.Second })

	waitUntil(t, "healthy probes", func() bool { return h.probes.Load() >= 3 })
	first := r.proc(7)
	if first.stopped.Load() || r.startCount() != 1 {
		t.Fatalf("a healthy replica was stopped or started again (%d starts)", r.startCount())
	}
	seen := h.probes.Load()
	h.status.Store(http.StatusServiceUnavailable)
	waitUntil(t, "the replica started again", func() bool { return r.startCount() == 2 })
	if !first.stopped.Load() {
		t.Error("the hung replica was not stopped before it started again")
	}
	if n := h.probes.Load() - seen; n < healthFailures {
		t.Errorf("restarted after %d failed probes, want at least %d", n, healthFailures)
	}
	f.with(func() {
		for _, s := range f.statuses {
			if s.State == api.TaskExited {
				t.Errorf("status %+v sent, want no exit: the replica starts again", s)
			}
		}
	})
}

// TestHealthProbeGivesAReplicaItsGraceToLoad: a replica that has never answered healthy is
// left alone while its grace lasts (a model loads for minutes), and restarted after it.
func TestHealthProbeGivesAReplicaItsGraceToLoad(t *testing.T) {
	for _, tc := range []struct {
		name    string
		grace   time.Duration
		restart bool
	}{{"within its grace", 1000 * time.Hour, false}, {"past its grace", 5 * time.Second, true}} {
		t.Run(tc.name, func(t *testing.T) {
			h, _, r := runProbed(t, http.StatusServiceUnavailable, func(c *Config) { c.HealthGrace = tc.grace })
			if tc.restart {
				waitUntil(t, "the replica started again", func() bool { return r.startCount() >= 2 })
				return
			}
			waitUntil(t, "20 failed probes", func() bool { return h.probes.Load() >= 20 })
			if r.startCount() != 1 || r.proc(7).stopped.Load() {
				t.Errorf("a loading replica was stopped (%d starts), want it left alone within its grace", r.startCount())
			}
		})
	}
}
