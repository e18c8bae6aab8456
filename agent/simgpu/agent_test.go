package simgpu

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"kashi/agent"
	"kashi/api"
)

// TestAgentRunsSimulatedTask runs the real agent over a simulated node, as the demo does.
func TestAgentRunsSimulatedTask(t *testing.T) {
	clock := newFakeClock()
	b := New(A100_80G, 2, clock.Now, 1)

	var mu sync.Mutex
	var busySamples int
	var states []string
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+api.PathRegister, func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(api.RegisterResponse{NodeID: 1, Token: "node"})
	})
	mux.HandleFunc("POST "+api.PathSamples, func(w http.ResponseWriter, r *http.Request) {
		var req api.SamplesRequest
		json.NewDecoder(r.Body).Decode(&req)
		mu.Lock()
		defer mu.Unlock()
		for _, s := range req.Samples {
			if len(s.Processes) > 0 {
				busySamples++
			}
		}
	})
	mux.HandleFunc("GET "+api.PathAssignments, func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(api.AssignmentsResponse{Tasks: []api.Assignment{
			{TaskID: 1, GPUUUIDs: uuids(b), Command: Command(Finetune, time.Hour, 0)},
		}})
	})
	mux.HandleFunc("POST "+api.PathTaskStatus+"{id}/status", func(w http.ResponseWriter, r *http.Request) {
		var req api.TaskStatusRequest
		json.NewDecoder(r.Body).Decode(&req)
		mu.Lock()
		defer mu.Unlock()
		states = append(states, req.State)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	a := agent.New(agent.Config{
		Server: srv.URL, JoinToken: "join", Pool: "a100", Hostname: "sim-1",
		SampleInterval: 5 * time.Millisecond, PollInterval: 5 * time.Millisecond,
		Now: clock.Now, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}, b, b.Runner())
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()

	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for !func() bool { mu.Lock(); defer mu.Unlock(); return cond() }() {
			if ctx.Err() != nil {
				t.Fatalf("gave up waiting for %s", what)
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
	waitFor("busy samples", func() bool { return busySamples >= 4 })
	clock.Add(time.Hour)
	waitFor("the exit report", func() bool { return len(states) == 2 })
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run() = %v", err)
	}
	if states[0] != api.TaskRunning || states[1] != api.TaskExited {
		t.Errorf("states = %q, want running then exited", states)
	}
}
