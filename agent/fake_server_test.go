package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"kashi/api"
)

// fakeServer speaks the agent API from memory. Tests script failures by queueing statuses
// that the next calls answer with.
type fakeServer struct {
	*httptest.Server

	mu sync.Mutex
	// token is the node token now valid; revoke clears it.
	token         string
	registrations []api.RegisterRequest
	registerFail  []int
	// prePull is what registrations answer in pre_pull.
	prePull []string
	// samples holds the stored samples; batches holds each stored batch's size.
	samples     []api.Sample
	batches     []int
	samplesFail []int
	// retryAfter is the Retry-After header of scripted sample failures.
	retryAfter string
	// rejected holds the samples answered with an error.
	rejected    []api.Sample
	assignments []api.Assignment
	// longPoll makes the server wait as Kashi's does (a list unchanged since the request's
	// If-None-Match waits for assign or the wait's end); waits counts the requests that
	// asked to wait.
	longPoll bool
	changed  chan struct{}
	waits    int
	polls    int
	// running holds the task ids each poll said run on the node.
	running    [][]int64
	dropped    []int64
	logs       []api.TaskLog
	serving    []api.ServingReport
	statuses   []statusCall
	statusFail []int
}

// statusCall is one task status the server stored.
type statusCall struct {
	TaskID      int64
	State       string
	ExitCode    int
	Message     string
	OutputUnits int64
	OutputUnit  string
	Checkpoint  bool
	Attempt     int
	// Cause, Account and MemoryLimitMiB say why a task failed, when the agent knows.
	Cause          string
	Account        string
	MemoryLimitMiB int64
}

func newFakeServer(t *testing.T) *fakeServer {
	f := &fakeServer{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+api.PathRegister, f.register)
	mux.HandleFunc("POST "+api.PathSamples, f.postSamples)
	mux.HandleFunc("GET "+api.PathAssignments, f.getAssignments)
	mux.HandleFunc("POST "+api.PathTaskStatus+"{id}/status", f.postStatus)
	f.Server = httptest.NewServer(mux)
	t.Cleanup(f.Close)
	return f
}

// with runs fn with the server's state locked.
func (f *fakeServer) with(fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn()
}

// waitFor polls cond, with the state locked, until it holds or 5 s have passed.
func (f *fakeServer) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(2 * time.Millisecond) {
		f.mu.Lock()
		ok := cond()
		f.mu.Unlock()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
	}
}

// revoke makes the node's token invalid, as when an admin removes the node.
func (f *fakeServer) revoke() {
	f.with(func() { f.token = "" })
}

// failNext pops the next scripted failure status of a queue, or returns 0.
func failNext(queue *[]int) int {
	if len(*queue) == 0 {
		return 0
	}
	status := (*queue)[0]
	*queue = (*queue)[1:]
	return status
}

func writeError(w http.ResponseWriter, status int, msg string) {
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(api.Error{Error: msg})
}

// authorized checks the node token; the caller holds the lock.
func (f *fakeServer) authorized(w http.ResponseWriter, r *http.Request) bool {
	if f.token == "" || r.Header.Get("Authorization") != "Bearer "+f.token {
		writeError(w, http.StatusUnauthorized, "invalid token")
		return false
	}
	return true
}

func (f *fakeServer) register(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if status := failNext(&f.registerFail); status != 0 {
		writeError(w, status, "scripted failure")
		return
	}
	if r.Header.Get("Authorization") != "Bearer join" {
		writeError(w, http.StatusUnauthorized, "invalid join token")
		return
	}
	var req api.RegisterRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	f.registrations = append(f.registrations, req)
	f.token = fmt.Sprintf("node-token-%d", len(f.registrations))
	json.NewEncoder(w).Encode(api.RegisterResponse{NodeID: 1, Token: f.token, PrePull: f.prePull})
}

func (f *fakeServer) postSamples(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.authorized(w, r) {
		return
	}
	var req api.SamplesRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if status := failNext(&f.samplesFail); status != 0 {
		f.rejected = append(f.rejected, req.Samples...)
		if f.retryAfter != "" {
			w.Header().Set("Retry-After", f.retryAfter)
		}
		writeError(w, status, "scripted failure")
		return
	}
	f.samples = append(f.samples, req.Samples...)
	f.dropped = append(f.dropped, req.DroppedSamples)
	f.logs = append(f.logs, req.Logs...)
	f.serving = append(f.serving, req.Serving...)
	f.batches = append(f.batches, len(req.Samples))
	json.NewEncoder(w).Encode(api.SamplesResponse{Accepted: len(req.Samples)})
}

// assign replaces the assignments and wakes the waiting long poll, with the state locked.
func (f *fakeServer) assign(as []api.Assignment) {
	f.assignments = as
	if f.changed != nil {
		close(f.changed)
		f.changed = nil
	}
}

// etag is the assignments' tag, with the state locked.
func (f *fakeServer) etag() string {
	b, _ := json.Marshal(f.assignments)
	return strconv.Quote(string(b))
}

func (f *fakeServer) getAssignments(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.authorized(w, r) {
		return
	}
	f.polls++
	if wait := r.URL.Query().Get(api.QueryWait); wait != "" {
		f.waits++
		if d, _ := time.ParseDuration(wait); f.longPoll && d > 0 {
			w.Header().Set(api.HeaderAssignmentsWait, d.String())
			if r.Header.Get("If-None-Match") == f.etag() {
				if f.changed == nil {
					f.changed = make(chan struct{})
				}
				changed := f.changed
				f.mu.Unlock()
				select {
				case <-changed:
				case <-time.After(d):
				case <-r.Context().Done():
				}
				f.mu.Lock()
			}
		}
	}
	w.Header().Set("ETag", f.etag())
	var ids []int64
	if v := r.URL.Query().Get(api.QueryRunning); v != "" {
		for _, s := range strings.Split(v, ",") {
			id, _ := strconv.ParseInt(s, 10, 64)
			ids = append(ids, id)
		}
	}
	f.running = append(f.running, ids)
	json.NewEncoder(w).Encode(api.AssignmentsResponse{Tasks: f.assignments})
}

func (f *fakeServer) postStatus(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.authorized(w, r) {
		return
	}
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		writeError(w, http.StatusNotFound, "no such task")
		return
	}
	var req api.TaskStatusRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if status := failNext(&f.statusFail); status != 0 {
		writeError(w, status, "scripted failure")
		return
	}
	f.statuses = append(f.statuses, statusCall{TaskID: id, State: req.State, ExitCode: req.ExitCode, Message: req.Message,
		OutputUnits: req.OutputUnits, OutputUnit: req.OutputUnit, Checkpoint: req.CheckpointAt != nil, Attempt: req.Attempt,
		Cause: req.Cause, Account: req.Account, MemoryLimitMiB: req.MemoryLimitMiB})
	w.WriteHeader(http.StatusNoContent)
}

// fakeRunner starts fakeProcs that exit when the test says so.
type fakeRunner struct {
	mu     sync.Mutex
	procs  map[int64]*fakeProc
	starts []int64
	// limits holds each start's memory and CPU limits.
	limits    [][2]int64
	failStart error
	// slowStop makes Stop only record the request: the process exits when the test says.
	slowStop bool
}

func (r *fakeRunner) Start(_ context.Context, a api.Assignment) (Process, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.starts = append(r.starts, a.TaskID)
	r.limits = append(r.limits, [2]int64{a.MemoryLimitMiB, a.CPULimitMillis})
	if r.failStart != nil {
		return nil, r.failStart
	}
	if r.procs == nil {
		r.procs = make(map[int64]*fakeProc)
	}
	p := &fakeProc{done: make(chan struct{}), slowStop: r.slowStop}
	r.procs[a.TaskID] = p
	return p, nil
}

// proc returns the process started for a task.
func (r *fakeRunner) proc(id int64) *fakeProc {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.procs[id]
}

// startCount returns how many starts the runner saw.
func (r *fakeRunner) startCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.starts)
}

// fakeProc is a process that exits when exit or Stop is called.
type fakeProc struct {
	once     sync.Once
	done     chan struct{}
	code     int
	stopped  atomic.Bool
	slowStop bool
}

func (p *fakeProc) exit(code int) {
	p.once.Do(func() {
		p.code = code
		close(p.done)
	})
}

func (p *fakeProc) Wait() (int, error) {
	<-p.done
	return p.code, nil
}

func (p *fakeProc) Stop(time.Duration) {
	p.stopped.Store(true)
	if !p.slowStop {
		p.exit(143)
	}
}
