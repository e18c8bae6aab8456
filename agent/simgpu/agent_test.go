package simgpu

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"kashi/agent"
	"kashi/api"
)

// controlPlane is a server for one simulated node: it lists the assignments the test sets
// and records what the agent sends.
type controlPlane struct {
	mu          sync.Mutex
	assignments []api.Assignment
	busySamples int
	statuses    []status
	serving     []api.ServingReport
	polls       int
	// logs is the agent's log, a line a record.
	logs []string
	// taskLogs is what the agent shipped of its tasks' logs; logDir, when set, is where its
	// simulated tasks write them (LoggingRunner).
	taskLogs []api.TaskLog
	logDir   string
}

// Write takes one line of the agent's log.
func (cp *controlPlane) Write(p []byte) (int, error) {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	cp.logs = append(cp.logs, string(p))
	return len(p), nil
}

// status is a task's status report.
type status struct {
	TaskID int64
	api.TaskStatusRequest
}

func (cp *controlPlane) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+api.PathRegister, func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(api.RegisterResponse{NodeID: 1, Token: "node"})
	})
	mux.HandleFunc("POST "+api.PathSamples, func(w http.ResponseWriter, r *http.Request) {
		var req api.SamplesRequest
		json.NewDecoder(r.Body).Decode(&req)
		cp.mu.Lock()
		defer cp.mu.Unlock()
		for _, s := range req.Samples {
			if len(s.Processes) > 0 {
				cp.busySamples++
			}
		}
		cp.serving = append(cp.serving, req.Serving...)
		cp.taskLogs = append(cp.taskLogs, req.Logs...)
	})
	mux.HandleFunc("GET "+api.PathAssignments, func(w http.ResponseWriter, r *http.Request) {
		cp.mu.Lock()
		defer cp.mu.Unlock()
		cp.polls++
		json.NewEncoder(w).Encode(api.AssignmentsResponse{Tasks: cp.assignments})
	})
	mux.HandleFunc("POST "+api.PathTaskStatus+"{id}/status", func(w http.ResponseWriter, r *http.Request) {
		var req api.TaskStatusRequest
		json.NewDecoder(r.Body).Decode(&req)
		id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
		cp.mu.Lock()
		defer cp.mu.Unlock()
		cp.statuses = append(cp.statuses, status{TaskID: id, TaskStatusRequest: req})
	})
	return mux
}

// with runs fn holding the control plane's lock.
func (cp *controlPlane) with(fn func()) {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	fn()
}

// runSimAgent runs the real agent over backend b, served by cp, with the virtual clock; it
// returns a waitFor that polls a condition under cp's lock, and the agent's stop.
func runSimAgent(t *testing.T, cp *controlPlane, b *Backend, clock *fakeClock) (waitFor func(string, func() bool), stop func()) {
	srv := httptest.NewServer(cp.handler())
	t.Cleanup(srv.Close)
	runner := b.Runner()
	if cp.logDir != "" {
		runner = b.LoggingRunner(cp.logDir)
	}
	a := agent.New(agent.Config{
		Server: srv.URL, JoinToken: "join", Pool: "a100", Hostname: "sim-1",
		SampleInterval: 5 * time.Millisecond, PollInterval: 5 * time.Millisecond, RestartBackoff: 10 * time.Second,
		Now: clock.Now, Logger: slog.New(slog.NewTextHandler(cp, nil)),
	}, b, runner)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	stop = sync.OnceFunc(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run() = %v", err)
		}
	})
	t.Cleanup(stop)
	waitFor = func(what string, cond func() bool) {
		t.Helper()
		for !func() bool { cp.mu.Lock(); defer cp.mu.Unlock(); return cond() }() {
			if ctx.Err() != nil {
				t.Fatalf("gave up waiting for %s", what)
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
	return waitFor, stop
}

// TestAgentRunsSimulatedTask runs the real agent over a simulated node, as the demo does.
func TestAgentRunsSimulatedTask(t *testing.T) {
	clock := newFakeClock()
	b := New(A100_80G, 2, clock.Now, 1)
	cp := &controlPlane{assignments: []api.Assignment{
		{TaskID: 1, GPUUUIDs: uuids(b), Command: Command(Finetune, time.Hour, 0)},
	}}
	waitFor, stop := runSimAgent(t, cp, b, clock)
	waitFor("busy samples", func() bool { return cp.busySamples >= 4 })
	clock.Add(time.Hour)
	waitFor("the exit report", func() bool { return len(cp.statuses) == 2 })
	stop()
	if cp.statuses[0].State != api.TaskRunning || cp.statuses[1].State != api.TaskExited {
		t.Errorf("statuses = %+v, want running then exited", cp.statuses)
	}
}

// TestSimulatedTaskShipsItsLog: a simulated task writes its progress as a training script
// prints it — a first line, a line every 5 minutes of virtual time, its exit — and the real
// agent follows that log and ships its lines to the server, as it does a real task's: the
// demo's live tails are not empty.
func TestSimulatedTaskShipsItsLog(t *testing.T) {
	clock := newFakeClock()
	b := New(A100_80G, 2, clock.Now, 1)
	cp := &controlPlane{logDir: t.TempDir(), assignments: []api.Assignment{
		{TaskID: 4, GPUUUIDs: uuids(b), Command: Command(Train, time.Hour, 0)},
	}}
	waitFor, stop := runSimAgent(t, cp, b, clock)
	shipped := func() string {
		var text string
		for _, l := range cp.taskLogs {
			if l.TaskID == 4 {
				text += l.Text
			}
		}
		return text
	}
	waitFor("the first line", func() bool { return strings.Contains(shipped(), "kashi-sim: train on 2 GPU(s) for 1h0m0s") })
	clock.Add(16 * time.Minute)
	waitFor("three progress lines", func() bool { return strings.Count(shipped(), " loss ") == 3 })
	clock.Add(time.Hour)
	exited := func() bool { n := len(cp.statuses); return n > 0 && cp.statuses[n-1].State == api.TaskExited }
	waitFor("the exit report", exited)
	stop()
	exit := cp.statuses[len(cp.statuses)-1]
	var lines, outputs []string
	for _, line := range strings.Split(strings.TrimSpace(shipped()), "\n") {
		if strings.HasPrefix(line, "KASHI_OUTPUT ") {
			outputs = append(outputs, line)
		} else {
			lines = append(lines, line)
		}
	}
	// A training task reports the samples it trained with each progress line and at its end,
	// which the agent reports with its exit: 400 × 2^0.85 a second for an hour.
	if len(outputs) != 12 || outputs[11] != "KASHI_OUTPUT 2595601 samples" || exit.OutputUnits != 2_595_601 || exit.OutputUnit != "samples" {
		t.Errorf("output lines %q, exit reported %d %s; want 12 lines, 2,595,601 samples at the end", outputs, exit.OutputUnits, exit.OutputUnit)
	}
	if len(lines) != 13 || !strings.Contains(lines[1], "step 50/600") || !strings.HasSuffix(lines[12], "done: exit code 0") {
		t.Errorf("shipped log = %q, want a first line, 11 progress lines (step 50/600 first) and the exit", lines)
	}
}
