package agent

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"kashi/api"
)

// newSpoolAgent returns a registered agent sampling every 10 s (by hand) into a spool on
// stateDir that holds at most maxSamples.
func newSpoolAgent(t *testing.T, f *fakeServer, stateDir string, maxSamples int, now func() time.Time) *Agent {
	t.Helper()
	a := newTestAgent(t, f, &fakeRunner{})
	a.cfg.SampleInterval, a.cfg.Now = 10*time.Second, now
	sp, err := openSpool(stateDir, maxSamples)
	if err != nil {
		t.Fatal(err)
	}
	a.spool = sp
	if err := a.registerWithRetry(t.Context()); err != nil {
		t.Fatal(err)
	}
	return a
}

// sampleTimes calls a.sample n times.
func sampleTimes(t *testing.T, a *Agent, n int) {
	t.Helper()
	for range n {
		if err := a.sample(t.Context()); err != nil {
			t.Fatalf("sample() = %v", err)
		}
	}
}

// fail makes the next n sample posts answer status.
func failSamples(n, status int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = status
	}
	return out
}

func TestSpoolKeepsTenMinutesAcrossARestart(t *testing.T) {
	f := newFakeServer(t)
	dir, now := t.TempDir(), testClock()
	// Ten minutes at 10 s: 60 ticks of 2 GPUs while the server answers 503.
	f.with(func() { f.samplesFail = failSamples(60, http.StatusServiceUnavailable) })
	first := newSpoolAgent(t, f, dir, 1440, now)
	sampleTimes(t, first, 30)
	// The agent is killed: only the spool on disk carries over.
	second := newSpoolAgent(t, f, dir, 1440, now)
	sampleTimes(t, second, 31)

	f.with(func() {
		if len(f.samplesFail) != 0 {
			t.Fatalf("%d scripted failures left", len(f.samplesFail))
		}
		seen := map[string]int{}
		for _, s := range f.samples {
			seen[s.UUID+s.TS.String()]++
		}
		if len(f.samples) != 122 || len(seen) != 122 {
			t.Errorf("server stored %d samples, %d distinct, want 122 once each", len(f.samples), len(seen))
		}
		for i := 1; i < len(f.samples); i++ {
			if f.samples[i].TS.Before(f.samples[i-1].TS) {
				t.Fatalf("sample %d at %s sent after one at %s: out of order", i, f.samples[i].TS, f.samples[i-1].TS)
			}
		}
	})
	if len(second.spool.entries) != 0 {
		t.Errorf("spool holds %d entries after delivery, want none", len(second.spool.entries))
	}
}

func TestSpoolTooSmallCountsDropped(t *testing.T) {
	f := newFakeServer(t)
	f.with(func() { f.samplesFail = failSamples(60, http.StatusServiceUnavailable) })
	a := newSpoolAgent(t, f, t.TempDir(), 50, testClock())
	sampleTimes(t, a, 61)
	sampleTimes(t, a, 1)

	f.with(func() {
		// 61 ticks of 2 samples, 50 kept: the oldest 72 dropped, reported once.
		if len(f.samples) != 52 {
			t.Errorf("server stored %d samples, want 50 + 2", len(f.samples))
		}
		if want := []int64{72, 0}; len(f.dropped) != 2 || f.dropped[0] != want[0] || f.dropped[1] != want[1] {
			t.Errorf("dropped counts sent = %v, want %v", f.dropped, want)
		}
	})
}

func TestSpoolKeepsStatusesInOrder(t *testing.T) {
	f := newFakeServer(t)
	f.with(func() {
		f.samplesFail = failSamples(1, http.StatusServiceUnavailable)
		f.statusFail = []int{http.StatusServiceUnavailable}
	})
	a := newSpoolAgent(t, f, t.TempDir(), 2, testClock())
	sampleTimes(t, a, 1)
	a.report(3, api.TaskStatusRequest{State: api.TaskExited, ExitCode: 1})
	sampleTimes(t, a, 2) // over capacity: samples go, the status stays
	sampleTimes(t, a, 1)

	f.with(func() {
		if len(f.statuses) != 1 || f.statuses[0].TaskID != 3 {
			t.Errorf("statuses = %+v, want task 3's exit", f.statuses)
		}
	})
}

func TestRetryAfterHoldsTheSpool(t *testing.T) {
	f := newFakeServer(t)
	f.with(func() {
		f.samplesFail = []int{http.StatusTooManyRequests}
		f.retryAfter = "25"
	})
	a := newSpoolAgent(t, f, t.TempDir(), 1000, testClock())
	sampleTimes(t, a, 1) // 429, Retry-After 25 s: three 10 s ticks without sending
	sampleTimes(t, a, 3)
	f.with(func() {
		if len(f.batches) != 0 {
			t.Errorf("the agent sent %d batches while asked to wait", len(f.batches))
		}
	})
	sampleTimes(t, a, 1)
	f.with(func() {
		if len(f.samples) != 10 {
			t.Errorf("server stored %d samples after the wait, want all 10", len(f.samples))
		}
	})
}

// TestSpoolPrivate: the spool, which holds tasks' log lines, is the agent's alone (0700),
// also when an older agent made it readable to all.
func TestSpoolPrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "spool")
	os.MkdirAll(dir, 0o755)
	if _, err := openSpool(dir, 10); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("spool folder mode = %v, %v; want 0700", fi.Mode(), err)
	}
}
