package agent

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/api"
)

// testClock returns a Now that moves one second forward on every call, so every sample has
// its own timestamp.
func testClock() func() time.Time {
	var mu sync.Mutex
	now := t0
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(time.Second)
		return now
	}
}

// newTestAgent returns an agent of two mock GPUs that talks to f every 5 ms.
func newTestAgent(t *testing.T, f *fakeServer, runner Runner) *Agent {
	cfg := Config{
		Server: f.URL, JoinToken: "join", Pool: "a100", Hostname: "node-1",
		SampleInterval: 5 * time.Millisecond, PollInterval: 5 * time.Millisecond, StopGrace: time.Second,
		Now:    testClock(),
		Logger: slog.New(slog.NewTextHandler(t.Output(), nil)),
	}
	a := New(cfg, newMockNVML(2), runner)
	a.retryMin, a.retryMax = time.Millisecond, 5*time.Millisecond
	return a
}

// runAgent runs a in the background and returns a function that cancels it and returns
// Run's result; the test's cleanup calls it too.
func runAgent(t *testing.T, a *Agent) (stop func() error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	errc := make(chan error, 1)
	go func() { errc <- a.Run(ctx) }()
	stop = sync.OnceValue(func() error {
		cancel()
		select {
		case err := <-errc:
			return err
		case <-time.After(5 * time.Second):
			t.Error("Run did not return after cancel")
			return nil
		}
	})
	t.Cleanup(func() { stop() })
	return stop
}

func TestRunRegistersAndSendsSamples(t *testing.T) {
	f := newFakeServer(t)
	a := newTestAgent(t, f, &fakeRunner{})
	gpus, err := a.collector.GPUs()
	if err != nil {
		t.Fatal(err)
	}
	f.with(func() { f.registerFail = []int{http.StatusServiceUnavailable, http.StatusBadGateway} })
	stop := runAgent(t, a)

	f.waitFor(t, "samples of both GPUs", func() bool {
		seen := map[string]int{}
		for _, s := range f.samples {
			seen[s.UUID]++
		}
		return seen[gpus[0].UUID] >= 3 && seen[gpus[1].UUID] >= 3
	})
	if err := stop(); err != nil {
		t.Errorf("Run() = %v, want nil after cancel", err)
	}
	want := []api.RegisterRequest{{Hostname: "node-1", Pool: "a100", GPUs: gpus}}
	f.with(func() {
		if diff := cmp.Diff(want, f.registrations); diff != "" {
			t.Errorf("registrations (-want +got):\n%s", diff)
		}
	})
}

func TestRunGivesUpOnRefusedRegistration(t *testing.T) {
	f := newFakeServer(t)
	f.with(func() { f.registerFail = []int{http.StatusServiceUnavailable, http.StatusForbidden} })
	a := newTestAgent(t, f, &fakeRunner{})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()

	err := a.Run(ctx)
	if apiErr, ok := errors.AsType[*APIError](err); !ok || apiErr.Status != http.StatusForbidden {
		t.Errorf("Run() = %v, want the 403", err)
	}
}

func TestRunKeepsSamplesWhileServerIsAway(t *testing.T) {
	f := newFakeServer(t)
	f.with(func() { f.samplesFail = []int{503, 503, 503} })
	stop := runAgent(t, newTestAgent(t, f, &fakeRunner{}))

	f.waitFor(t, "every rejected sample delivered", func() bool {
		if len(f.rejected) == 0 || len(f.samplesFail) > 0 {
			return false
		}
		stored := map[time.Time]bool{}
		for _, s := range f.samples {
			stored[s.TS] = true
		}
		for _, s := range f.rejected {
			if !stored[s.TS] {
				return false
			}
		}
		return true
	})
	stop()
	f.with(func() {
		if got, want := f.samples[0], f.rejected[0]; !got.TS.Equal(want.TS) || got.UUID != want.UUID {
			t.Errorf("first stored sample = %s at %s, want the backlog's oldest, %s at %s", got.UUID, got.TS, want.UUID, want.TS)
		}
	})
}

func TestRunReregistersOn401(t *testing.T) {
	f := newFakeServer(t)
	runAgent(t, newTestAgent(t, f, &fakeRunner{}))
	f.waitFor(t, "samples", func() bool { return len(f.samples) > 0 })

	var before int
	f.with(func() { before = len(f.samples) })
	f.revoke()
	f.waitFor(t, "a second registration and samples after it", func() bool {
		return len(f.registrations) == 2 && len(f.samples) > before
	})
}

func TestRunStartsTaskAndReportsExit(t *testing.T) {
	f := newFakeServer(t)
	r := &fakeRunner{}
	f.with(func() {
		f.assignments = []api.Assignment{{TaskID: 7, GPUUUIDs: []string{"GPU-x"}, Command: []string{"train"}}}
	})
	runAgent(t, newTestAgent(t, f, r))

	f.waitFor(t, "running report", func() bool { return len(f.statuses) == 1 })
	r.proc(7).exit(3)
	f.waitFor(t, "exited report", func() bool { return len(f.statuses) == 2 })
	var polls int
	f.with(func() { polls = f.polls })
	f.waitFor(t, "more polls with the task still listed", func() bool { return f.polls > polls+3 })

	if n := r.startCount(); n != 1 {
		t.Errorf("runner started %d processes, want 1: an exited task is not started again", n)
	}
	want := []statusCall{{TaskID: 7, State: api.TaskRunning}, {TaskID: 7, State: api.TaskExited, ExitCode: 3}}
	f.with(func() {
		if diff := cmp.Diff(want, f.statuses); diff != "" {
			t.Errorf("statuses (-want +got):\n%s", diff)
		}
	})
}

func TestRunStopsTasks(t *testing.T) {
	tests := map[string]func(as []api.Assignment) []api.Assignment{
		"stop requested": func(as []api.Assignment) []api.Assignment {
			as[0].Stop = true
			return as
		},
		"no longer assigned": func(as []api.Assignment) []api.Assignment { return nil },
	}
	for name, change := range tests {
		t.Run(name, func(t *testing.T) {
			f := newFakeServer(t)
			r := &fakeRunner{}
			f.with(func() { f.assignments = []api.Assignment{{TaskID: 8, Command: []string{"train"}}} })
			runAgent(t, newTestAgent(t, f, r))
			f.waitFor(t, "running report", func() bool { return len(f.statuses) == 1 })

			f.with(func() { f.assignments = change(slices.Clone(f.assignments)) })
			f.waitFor(t, "exited report", func() bool { return len(f.statuses) == 2 })
			if !r.proc(8).stopped.Load() {
				t.Error("the task's process was not stopped")
			}
			f.with(func() {
				if got, want := f.statuses[1], (statusCall{TaskID: 8, State: api.TaskExited, ExitCode: 143}); got != want {
					t.Errorf("last status = %+v, want %+v", got, want)
				}
			})
		})
	}
}

func TestRunReportsFailedStart(t *testing.T) {
	f := newFakeServer(t)
	r := &fakeRunner{failStart: errors.New(`exec: "trian": executable file not found in $PATH`)}
	f.with(func() { f.assignments = []api.Assignment{{TaskID: 9, Command: []string{"trian"}}} })
	runAgent(t, newTestAgent(t, f, r))

	f.waitFor(t, "failed-to-start report", func() bool { return len(f.statuses) == 1 })
	var polls int
	f.with(func() { polls = f.polls })
	f.waitFor(t, "more polls with the task still listed", func() bool { return f.polls > polls+3 })
	if n := r.startCount(); n != 1 {
		t.Errorf("runner tried %d starts, want 1", n)
	}
	f.with(func() {
		got := f.statuses[0]
		if got.TaskID != 9 || got.State != api.TaskFailedToStart || !strings.Contains(got.Message, "executable file not found") {
			t.Errorf("status = %+v, want failed-to-start of task 9 with the start error", got)
		}
	})
}

func TestRunRetriesStatusReports(t *testing.T) {
	f := newFakeServer(t)
	r := &fakeRunner{}
	f.with(func() {
		f.assignments = []api.Assignment{{TaskID: 10, Command: []string{"train"}}}
		f.statusFail = []int{503, 502}
	})
	runAgent(t, newTestAgent(t, f, r))
	f.waitFor(t, "running report despite failures", func() bool { return len(f.statuses) == 1 })

	f.with(func() { f.statusFail = []int{503, 503, 503} })
	r.proc(10).exit(0)
	f.waitFor(t, "exited report despite failures", func() bool { return len(f.statuses) == 2 })
	want := []statusCall{{TaskID: 10, State: api.TaskRunning}, {TaskID: 10, State: api.TaskExited}}
	f.with(func() {
		if diff := cmp.Diff(want, f.statuses); diff != "" {
			t.Errorf("statuses (-want +got):\n%s", diff)
		}
	})
}

func TestRunStopsTasksOnShutdown(t *testing.T) {
	f := newFakeServer(t)
	r := &fakeRunner{}
	f.with(func() { f.assignments = []api.Assignment{{TaskID: 11, Command: []string{"train"}}} })
	stop := runAgent(t, newTestAgent(t, f, r))
	f.waitFor(t, "running report", func() bool { return len(f.statuses) == 1 })

	if err := stop(); err != nil {
		t.Errorf("Run() = %v, want nil", err)
	}
	if !r.proc(11).stopped.Load() {
		t.Error("the task's process was not stopped on shutdown")
	}
	f.with(func() {
		if len(f.statuses) != 1 {
			t.Errorf("statuses = %+v, want only the running report: nothing is reported on shutdown", f.statuses)
		}
	})
}

func TestRunWaitsForCardsOfAStoppingTask(t *testing.T) {
	f := newFakeServer(t)
	r := &fakeRunner{slowStop: true}
	f.with(func() {
		f.assignments = []api.Assignment{{TaskID: 1, GPUUUIDs: []string{"GPU-x"}, Command: []string{"old"}}}
	})
	runAgent(t, newTestAgent(t, f, r))
	f.waitFor(t, "running report", func() bool { return len(f.statuses) == 1 })

	// The server gave GPU-x to task 2 while task 1 still ends (e.g. it ignores SIGTERM).
	f.with(func() {
		f.assignments = []api.Assignment{{TaskID: 2, GPUUUIDs: []string{"GPU-x"}, Command: []string{"new"}}}
	})
	var polls int
	f.with(func() { polls = f.polls })
	f.waitFor(t, "more polls", func() bool { return f.polls > polls+5 })
	if !r.proc(1).stopped.Load() {
		t.Fatal("task 1 was not asked to stop")
	}
	if n := r.startCount(); n != 1 {
		t.Fatalf("runner started %d tasks while task 1 held GPU-x, want 1", n)
	}
	r.proc(1).exit(137)
	f.waitFor(t, "task 2 running", func() bool { return len(f.statuses) == 3 })
	if n := r.startCount(); n != 2 {
		t.Errorf("runner started %d tasks, want 2 once GPU-x was free", n)
	}
}

// TestRunStartsALaterAttempt: a later attempt of a task whose earlier attempt still runs here
// (the node was given up as lost and came back, and the rerun was placed on it) stops the
// earlier one, whose exit is reported as its own, and then starts; each report names its
// attempt.
func TestRunStartsALaterAttempt(t *testing.T) {
	f := newFakeServer(t)
	r := &fakeRunner{}
	f.with(func() {
		f.assignments = []api.Assignment{{TaskID: 7, GPUUUIDs: []string{"GPU-x"}, Command: []string{"train"}, Attempt: 1}}
	})
	runAgent(t, newTestAgent(t, f, r))
	f.waitFor(t, "running report", func() bool { return len(f.statuses) == 1 })
	f.with(func() {
		f.assignments = []api.Assignment{{TaskID: 7, GPUUUIDs: []string{"GPU-x"}, Command: []string{"train"}, Attempt: 2, ResumeFrom: "/ckpt/1"}}
	})
	f.waitFor(t, "attempt 2 running", func() bool { return len(f.statuses) == 3 })
	want := []statusCall{{TaskID: 7, State: api.TaskRunning, Attempt: 1}, {TaskID: 7, State: api.TaskExited, ExitCode: 143, Attempt: 1},
		{TaskID: 7, State: api.TaskRunning, Attempt: 2}}
	f.with(func() {
		if diff := cmp.Diff(want, f.statuses); diff != "" {
			t.Errorf("statuses (-want +got):\n%s", diff)
		}
	})
	if n := r.startCount(); n != 2 {
		t.Errorf("runner started %d processes, want 2", n)
	}
}

// Two agents refused by a restarting server wait differently before registering again,
// each between the back-off and half as much again.
func TestRegisterRetryJitter(t *testing.T) {
	for _, d := range []time.Duration{time.Second, 16 * time.Second, time.Minute} {
		var a, b []time.Duration
		for range 20 {
			a, b = append(a, retryJitter(d)), append(b, retryJitter(d))
		}
		for _, w := range append(a, b...) {
			if w < d || w > d+d/2 {
				t.Errorf("retryJitter(%v) = %v, want within [%v, %v]", d, w, d, d+d/2)
			}
		}
		if slices.Equal(a, b) {
			t.Errorf("two agents waited the same after %v: %v", d, a)
		}
	}
}
