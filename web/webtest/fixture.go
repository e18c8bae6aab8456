// Package webtest is the one fixture of the HTTP tests: the real router over a real store
// (Server), with a fake scheduler and a fixed clock, and builders for what the tests
// register and submit. The areas' tests (handlers/<area>) and web's cross-cutting tests
// (access, CSRF, security, browser) all use it.
package webtest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
	"kashi/models"
	"kashi/models/modelstest"
	"kashi/scheduler"
	"kashi/web"
)

// T0 is the fixed "now" of every test: the handlers' clock never moves unless a test moves it.
var T0 = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

// JoinToken is the join token of every test server.
const JoinToken = "kj_test-join-token"

// DataRoot is the data root of every test server (--data-root): the readiness checks look at
// paths under it, so a task's path data check must name one (a test of a server without
// roots sets none: Store.SetDataRoots(nil)).
const DataRoot = "/data"

// The NVML names and memory sizes of the cards the fixtures register.
const (
	// A100Name is the NVML name of an A100 card.
	A100Name = "NVIDIA A100-SXM4-80GB"
	// A100MiB is an A100 card's memory in MiB.
	A100MiB = 81920
	// H800Name is the NVML name of an H800 card.
	H800Name = "NVIDIA H800"
	// H800MiB is an H800 card's memory in MiB.
	H800MiB = 81559
)

// FakeSched counts Trigger calls and never ticks; the queue it shows is the real loop's
// read-only view of the store.
type FakeSched struct {
	n    atomic.Int64
	Loop *scheduler.Loop
}

// Trigger counts a wake-up of the scheduler and does nothing else.
func (f *FakeSched) Trigger() { f.n.Add(1) }

// Queue is the real loop's queue: as the loop never ticks, a snapshot read at now, storing
// nothing.
func (f *FakeSched) Queue(ctx context.Context, now time.Time) (scheduler.QueueView, error) {
	return f.Loop.Queue(ctx, now)
}

// Try is the real loop's trial of p on a snapshot read at now, storing nothing.
func (f *FakeSched) Try(ctx context.Context, now time.Time, p scheduler.Pending) (scheduler.Trial, error) {
	return f.Loop.Try(ctx, now, p)
}

// Triggers is how many times Trigger was called.
func (f *FakeSched) Triggers() int { return int(f.n.Load()) }

// TestCfg is the handler configuration of every test server.
func TestCfg() handlers.Config {
	return handlers.Config{JoinToken: JoinToken, IdleAfter: 30 * time.Minute, SaturatedAfter: 30 * time.Minute,
		StaleAfter: 2 * time.Minute, TaskLimits: models.DefaultTaskLimits}
}

// Server is the real router over a real store, with a fake scheduler and a fixed clock.
type Server struct {
	Tb    testing.TB    // where failures are reported
	Store *models.Store // the store under the router
	Sched *FakeSched    // the scheduler the handlers wake
	E     *echo.Echo    // the router
	now   *atomic.Pointer[time.Time]
	// Token is an admin's API token, sent with every request that names no Authorization.
	Token string
}

// NewServer builds the router over a fresh SQLite store.
func NewServer(tb testing.TB) *Server {
	tb.Helper()
	return NewServerOn(tb, modelstest.SQLite(tb, models.Options{}), TestCfg())
}

// NewServerOn builds the router over store with cfg.
func NewServerOn(tb testing.TB, store *models.Store, cfg handlers.Config) *Server {
	s := &Server{Tb: tb, Store: store, Sched: &FakeSched{}, now: new(atomic.Pointer[time.Time])}
	store.SetDataRoots([]string{DataRoot})
	now := T0
	s.now.Store(&now)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	s.Sched.Loop = scheduler.NewLoop(store, scheduler.LoopConfig{Policy: scheduler.DefaultPolicy(time.UTC), Now: s.Clock, Logger: log})
	s.E = web.New(web.NewAreas(store, s.Sched, cfg, func() time.Time { return *s.now.Load() }), false, log)
	s.Token = AdminToken(tb, store)
	return s
}

// AdminToken creates the user "tester", an admin, and returns an API token of theirs.
func AdminToken(tb testing.TB, store *models.Store) string {
	tb.Helper()
	ctx := context.Background()
	u, err := store.UserByName(ctx, "tester")
	if err != nil {
		if u, err = store.CreateUser(ctx, "tester", "pw-tester", models.RoleAdmin, T0); err != nil {
			tb.Fatal(err)
		}
	}
	tok, _, err := store.CreateAPIToken(ctx, u.ID, "tests", models.ScopeWrite, T0)
	if err != nil {
		tb.Fatal(err)
	}
	return tok
}

// With returns the same server reporting failures to tb, for use inside a fuzz target.
func (s *Server) With(tb testing.TB) *Server {
	c := *s
	c.Tb = tb
	return &c
}

// SetNow moves the handlers' clock.
func (s *Server) SetNow(t time.Time) { s.now.Store(&t) }

// Req is one request to the router.
type Req struct {
	Method, Path string
	Body         string            // sent, when not empty, as application/json unless Hdr says otherwise
	Hdr          map[string]string // headers; an empty value sets none, and an empty Authorization sends no token
}

// Do sends r through the router and returns the recorded answer.
func (s *Server) Do(r Req) *httptest.ResponseRecorder {
	s.Tb.Helper()
	var body io.Reader
	if r.Body != "" {
		body = strings.NewReader(r.Body)
	}
	hr := httptest.NewRequest(r.Method, r.Path, body)
	if r.Body != "" {
		hr.Header.Set("Content-Type", "application/json")
	}
	if _, ok := r.Hdr["Authorization"]; !ok {
		hr.Header.Set("Authorization", "Bearer "+s.Token)
	}
	for k, v := range r.Hdr {
		if v != "" {
			hr.Header.Set(k, v)
		}
	}
	w := httptest.NewRecorder()
	s.E.ServeHTTP(w, hr)
	checkOpenAPI(s.Tb, hr, w)
	return w
}

// Get sends a GET with optional header pairs.
func (s *Server) Get(path string, hdr ...string) *httptest.ResponseRecorder {
	s.Tb.Helper()
	return s.Do(Req{Method: http.MethodGet, Path: path, Hdr: Pairs(hdr)})
}

// Post sends a JSON POST with optional header pairs.
func (s *Server) Post(path, body string, hdr ...string) *httptest.ResponseRecorder {
	s.Tb.Helper()
	return s.Do(Req{Method: http.MethodPost, Path: path, Body: body, Hdr: Pairs(hdr)})
}

// Pairs maps header pairs (name, value, name, value…) onto a header map; an odd last name
// is dropped.
func Pairs(kv []string) map[string]string {
	m := make(map[string]string, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

// Bearer is the header pair that sends tok as a bearer token.
func Bearer(tok string) []string { return []string{"Authorization", "Bearer " + tok} }

// MustJSON encodes v as JSON, failing the test if it cannot.
func MustJSON(tb testing.TB, v any) string {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatalf("encode %T: %v", v, err)
	}
	return string(b)
}

// Decode decodes w's JSON body as a T, failing the test on a bad body.
func Decode[T any](tb testing.TB, w *httptest.ResponseRecorder) T {
	tb.Helper()
	var v T
	dec := json.NewDecoder(bytes.NewReader(w.Body.Bytes()))
	if err := dec.Decode(&v); err != nil {
		tb.Fatalf("decode %T from %q: %v", v, w.Body.String(), err)
	}
	return v
}

// NodeB builds a node registration: Node("a100-01").InPool("a100").Cards(A100Name, A100MiB, 4).
type NodeB struct{ R api.RegisterRequest }

// Node starts the registration of hostname, in pool "default" with no GPUs.
func Node(hostname string) *NodeB {
	return &NodeB{R: api.RegisterRequest{Hostname: hostname, Pool: "default"}}
}

// InPool puts the node in pool p.
func (n *NodeB) InPool(p string) *NodeB { n.R.Pool = p; return n }

// Cards adds count GPUs named name with memMiB each; their UUIDs are "GPU-<host>-<index>".
func (n *NodeB) Cards(name string, memMiB int64, count int) *NodeB {
	for i := range count {
		n.R.GPUs = append(n.R.GPUs, api.GPUInfo{UUID: UUIDOf(n.R.Hostname, i), Index: i, Name: name, MemoryTotalMiB: memMiB})
	}
	return n
}

// UUIDOf is the UUID the builders give card i of host: "GPU-<host>-<i>".
func UUIDOf(host string, i int) string { return "GPU-" + host + "-" + strconv.Itoa(i) }

// Registered is a node as registration answered it.
type Registered struct {
	ID    int64
	Token string
	UUIDs []string
}

// Register posts the registration with the join token and fails the test unless it is 200.
func (s *Server) Register(n *NodeB) Registered {
	s.Tb.Helper()
	w := s.Post(api.PathRegister, MustJSON(s.Tb, n.R), Bearer(JoinToken)...)
	if w.Code != http.StatusOK {
		s.Tb.Fatalf("POST %s %s = %d %s, want 200", api.PathRegister, n.R.Hostname, w.Code, w.Body)
	}
	resp := Decode[api.RegisterResponse](s.Tb, w)
	out := Registered{ID: resp.NodeID, Token: resp.Token}
	for _, g := range n.R.GPUs {
		out.UUIDs = append(out.UUIDs, g.UUID)
	}
	return out
}

// Sample is one reading of uuid at ts.
func Sample(uuid string, ts time.Time, util int, memMiB int64) api.Sample {
	return api.Sample{UUID: uuid, TS: ts, UtilPct: util, MemoryUsedMiB: memMiB, TempC: 30 + util/3, PowerW: 60 + 3*util}
}

// PostSamples posts a batch with the node's token and fails the test unless it is 200.
func (s *Server) PostSamples(token string, ss ...api.Sample) api.SamplesResponse {
	s.Tb.Helper()
	w := s.Post(api.PathSamples, MustJSON(s.Tb, api.SamplesRequest{Samples: ss}), Bearer(token)...)
	if w.Code != http.StatusOK {
		s.Tb.Fatalf("POST %s = %d %s, want 200", api.PathSamples, w.Code, w.Body)
	}
	return Decode[api.SamplesResponse](s.Tb, w)
}

// Projects ensures the named projects exist.
func (s *Server) Projects(names ...string) {
	s.Tb.Helper()
	for _, n := range names {
		if _, err := s.Store.EnsureProject(context.Background(), n, T0.Add(-24*time.Hour)); err != nil {
			s.Tb.Fatalf("EnsureProject(%q): %v", n, err)
		}
	}
}

// TaskB builds a submitted task: Task("train").Of("vision").GPUs(2).Ready().
type TaskB struct{ Nt models.NewTask }

// Task starts a task named name: alice's, of vision, on one card of any spec, long queue,
// normal priority, running python train.py, its data not ready.
func Task(name string) *TaskB {
	return &TaskB{Nt: models.NewTask{Project: "vision", Name: name, Owner: "alice", GPUs: 1, Queue: models.QueueLong,
		Priority: "normal", Command: []string{"python", "train.py"}}}
}

// Of puts the task in project.
func (b *TaskB) Of(project string) *TaskB { b.Nt.Project = project; return b }

// GPUs sets how many cards the task asks for.
func (b *TaskB) GPUs(n int) *TaskB { b.Nt.GPUs = n; return b }

// Spec sets the card spec the task asks for.
func (b *TaskB) Spec(s string) *TaskB { b.Nt.Spec = s; return b }

// Ready marks the task's data ready, so that it may be placed.
func (b *TaskB) Ready() *TaskB { b.Nt.DataReady = true; return b }

// Attempts lets the task run at most n times (reruns from its last checkpoint included).
func (b *TaskB) Attempts(n int) *TaskB { b.Nt.MaxAttempts = n; return b }

// Create stores the task through the store at at.
func (s *Server) Create(b *TaskB, at time.Time) models.Task {
	s.Tb.Helper()
	t, _, err := s.Store.CreateTask(context.Background(), b.Nt, models.DefaultTaskLimits, at)
	if err != nil {
		s.Tb.Fatalf("CreateTask(%q): %v", b.Nt.Name, err)
	}
	return t
}

// GPUIDs maps GPU UUIDs to their row ids, failing the test on an unknown one.
func (s *Server) GPUIDs(uuids ...string) []int64 {
	s.Tb.Helper()
	nodes, err := s.Store.Nodes(context.Background())
	if err != nil {
		s.Tb.Fatalf("Nodes: %v", err)
	}
	byUUID := make(map[string]int64)
	for _, n := range nodes {
		for _, g := range n.GPUs {
			byUUID[g.UUID] = g.ID
		}
	}
	out := make([]int64, len(uuids))
	for i, u := range uuids {
		id, ok := byUUID[u]
		if !ok {
			s.Tb.Fatalf("no GPU %q", u)
		}
		out[i] = id
	}
	return out
}

// Place gives the GPUs to the queued task at at.
func (s *Server) Place(t models.Task, at time.Time, uuids ...string) {
	s.Tb.Helper()
	if err := s.Store.PlaceTask(context.Background(), t.ID, s.GPUIDs(uuids...), false, "test", at); err != nil {
		s.Tb.Fatalf("PlaceTask(%d, %v): %v", t.ID, uuids, err)
	}
}

// BoardGPU returns the current state of one GPU as the store holds it.
func (s *Server) BoardGPU(uuid string) models.BoardGPU {
	s.Tb.Helper()
	rows, err := s.Store.BoardGPUs(context.Background(), models.BoardFilter{})
	if err != nil {
		s.Tb.Fatalf("BoardGPUs: %v", err)
	}
	for _, r := range rows {
		if r.UUID == uuid {
			return r
		}
	}
	s.Tb.Fatalf("no GPU %q on the board", uuid)
	return models.BoardGPU{}
}

// TaskCount is how many tasks the store holds.
func (s *Server) TaskCount() int {
	s.Tb.Helper()
	ts, err := s.Store.Tasks(context.Background(), models.TaskFilter{Limit: 1000})
	if err != nil {
		s.Tb.Fatalf("Tasks: %v", err)
	}
	return len(ts)
}

// ForEachDB runs f on a server over a fresh SQLite store and, when KASHI_TEST_PG_DSN is set,
// over a fresh Postgres store.
func ForEachDB(t *testing.T, f func(t *testing.T, s *Server)) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, st *models.Store) {
		f(t, NewServerOn(t, st, TestCfg()))
	})
}

// NewStore opens a fresh SQLite store.
func NewStore(tb testing.TB) *models.Store { return modelstest.SQLite(tb, models.Options{}) }

// JSONStrict decodes body into v, refusing unknown fields and trailing data.
func JSONStrict(body string, v any) error {
	dec := json.NewDecoder(strings.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return io.ErrUnexpectedEOF
	}
	return nil
}

// Clock is the handlers' clock.
func (s *Server) Clock() time.Time { return *s.now.Load() }

// Readings maps wire samples onto the store's readings, for tests that write to the store
// directly.
func Readings(ss []api.Sample) []models.Reading {
	out := make([]models.Reading, len(ss))
	for i, s := range ss {
		out[i] = models.Reading{UUID: s.UUID, TS: s.TS, MemoryUsedMiB: s.MemoryUsedMiB, UtilPct: s.UtilPct, TempC: s.TempC, PowerW: s.PowerW}
	}
	return out
}
