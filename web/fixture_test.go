package web_test

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

// t0 is the fixed "now" of every test: the handlers' clock never moves unless a test moves it.
var t0 = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

// joinToken is the join token of every test server.
const joinToken = "kj_test-join-token"

// A100 and H800 are the NVML names and memory sizes the fixtures register.
const (
	a100Name = "NVIDIA A100-SXM4-80GB"
	a100MiB  = 81920
	h800Name = "NVIDIA H800"
	h800MiB  = 81559
)

// fakeSched counts Trigger calls and never ticks; the queue it shows is the real loop's
// read-only view of the store.
type fakeSched struct {
	n    atomic.Int64
	loop *scheduler.Loop
}

func (f *fakeSched) Trigger() { f.n.Add(1) }

func (f *fakeSched) Queue(ctx context.Context, now time.Time) (scheduler.QueueView, error) {
	return f.loop.Queue(ctx, now)
}

func (f *fakeSched) Try(ctx context.Context, now time.Time, p scheduler.Pending) (scheduler.Trial, error) {
	return f.loop.Try(ctx, now, p)
}

func (f *fakeSched) triggers() int { return int(f.n.Load()) }

// testCfg is the handler configuration of every test server.
func testCfg() handlers.Config {
	return handlers.Config{JoinToken: joinToken, IdleAfter: 30 * time.Minute, SaturatedAfter: 30 * time.Minute,
		StaleAfter: 2 * time.Minute, TaskLimits: models.DefaultTaskLimits}
}

// server is the real router over a real store, with a fake scheduler and a fixed clock.
type server struct {
	tb    testing.TB
	store *models.Store
	sched *fakeSched
	e     *echo.Echo
	now   *atomic.Pointer[time.Time]
	// token is an admin's API token, sent with every request that names no Authorization.
	token string
}

// newServer builds the router over a fresh SQLite store.
func newServer(tb testing.TB) *server {
	tb.Helper()
	return newServerOn(tb, modelstest.SQLite(tb, models.Options{}), testCfg())
}

// newServerOn builds the router over store with cfg.
func newServerOn(tb testing.TB, store *models.Store, cfg handlers.Config) *server {
	s := &server{tb: tb, store: store, sched: &fakeSched{}, now: new(atomic.Pointer[time.Time])}
	now := t0
	s.now.Store(&now)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	s.sched.loop = scheduler.NewLoop(store, scheduler.LoopConfig{Policy: scheduler.DefaultPolicy(time.UTC), Now: s.clock, Logger: log})
	s.e = web.New(web.NewAreas(store, s.sched, cfg, func() time.Time { return *s.now.Load() }), false, log)
	s.token = adminToken(tb, store)
	return s
}

// adminToken creates the user "tester", an admin, and returns an API token of theirs.
func adminToken(tb testing.TB, store *models.Store) string {
	tb.Helper()
	ctx := context.Background()
	u, err := store.UserByName(ctx, "tester")
	if err != nil {
		if u, err = store.CreateUser(ctx, "tester", "pw-tester", models.RoleAdmin, t0); err != nil {
			tb.Fatal(err)
		}
	}
	tok, _, err := store.CreateAPIToken(ctx, u.ID, "tests", models.ScopeWrite, t0)
	if err != nil {
		tb.Fatal(err)
	}
	return tok
}

// with returns the same server reporting failures to tb, for use inside a fuzz target.
func (s *server) with(tb testing.TB) *server {
	c := *s
	c.tb = tb
	return &c
}

// setNow moves the handlers' clock.
func (s *server) setNow(t time.Time) { s.now.Store(&t) }

// req is one request to the router.
type req struct {
	method, path string
	body         string
	hdr          map[string]string
}

// do sends r through the router and returns the recorded answer.
func (s *server) do(r req) *httptest.ResponseRecorder {
	s.tb.Helper()
	var body io.Reader
	if r.body != "" {
		body = strings.NewReader(r.body)
	}
	hr := httptest.NewRequest(r.method, r.path, body)
	if r.body != "" {
		hr.Header.Set("Content-Type", "application/json")
	}
	if _, ok := r.hdr["Authorization"]; !ok {
		hr.Header.Set("Authorization", "Bearer "+s.token)
	}
	for k, v := range r.hdr {
		if v != "" {
			hr.Header.Set(k, v)
		}
	}
	w := httptest.NewRecorder()
	s.e.ServeHTTP(w, hr)
	return w
}

// get sends a GET with optional header pairs.
func (s *server) get(path string, hdr ...string) *httptest.ResponseRecorder {
	s.tb.Helper()
	return s.do(req{method: http.MethodGet, path: path, hdr: pairs(hdr)})
}

// post sends a JSON POST with optional header pairs.
func (s *server) post(path, body string, hdr ...string) *httptest.ResponseRecorder {
	s.tb.Helper()
	return s.do(req{method: http.MethodPost, path: path, body: body, hdr: pairs(hdr)})
}

func pairs(kv []string) map[string]string {
	m := make(map[string]string, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

func bearer(tok string) []string { return []string{"Authorization", "Bearer " + tok} }

// mustJSON encodes v.
func mustJSON(tb testing.TB, v any) string {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatalf("encode %T: %v", v, err)
	}
	return string(b)
}

// decode decodes w's body into v, failing the test on a bad body.
func decode[T any](tb testing.TB, w *httptest.ResponseRecorder) T {
	tb.Helper()
	var v T
	dec := json.NewDecoder(bytes.NewReader(w.Body.Bytes()))
	if err := dec.Decode(&v); err != nil {
		tb.Fatalf("decode %T from %q: %v", v, w.Body.String(), err)
	}
	return v
}

// nodeB builds a node registration: node("a100-01").pool("a100").gpus(a100Name, a100MiB, 4).
type nodeB struct{ r api.RegisterRequest }

func node(hostname string) *nodeB {
	return &nodeB{r: api.RegisterRequest{Hostname: hostname, Pool: "default"}}
}

func (n *nodeB) inPool(p string) *nodeB { n.r.Pool = p; return n }

// cards adds count GPUs named name with memMiB each; their UUIDs are "GPU-<host>-<index>".
func (n *nodeB) cards(name string, memMiB int64, count int) *nodeB {
	for i := range count {
		n.r.GPUs = append(n.r.GPUs, api.GPUInfo{UUID: uuidOf(n.r.Hostname, i), Index: i, Name: name, MemoryTotalMiB: memMiB})
	}
	return n
}

func uuidOf(host string, i int) string { return "GPU-" + host + "-" + strconv.Itoa(i) }

// registered is a node as registration answered it.
type registered struct {
	ID    int64
	Token string
	UUIDs []string
}

// register posts the registration with the join token and fails the test unless it is 200.
func (s *server) register(n *nodeB) registered {
	s.tb.Helper()
	w := s.post(api.PathRegister, mustJSON(s.tb, n.r), bearer(joinToken)...)
	if w.Code != http.StatusOK {
		s.tb.Fatalf("POST %s %s = %d %s, want 200", api.PathRegister, n.r.Hostname, w.Code, w.Body)
	}
	resp := decode[api.RegisterResponse](s.tb, w)
	out := registered{ID: resp.NodeID, Token: resp.Token}
	for _, g := range n.r.GPUs {
		out.UUIDs = append(out.UUIDs, g.UUID)
	}
	return out
}

// sample is one reading of uuid at ts.
func sample(uuid string, ts time.Time, util int, memMiB int64) api.Sample {
	return api.Sample{UUID: uuid, TS: ts, UtilPct: util, MemoryUsedMiB: memMiB, TempC: 30 + util/3, PowerW: 60 + 3*util}
}

// postSamples posts a batch with the node's token and fails the test unless it is 200.
func (s *server) postSamples(token string, ss ...api.Sample) api.SamplesResponse {
	s.tb.Helper()
	w := s.post(api.PathSamples, mustJSON(s.tb, api.SamplesRequest{Samples: ss}), bearer(token)...)
	if w.Code != http.StatusOK {
		s.tb.Fatalf("POST %s = %d %s, want 200", api.PathSamples, w.Code, w.Body)
	}
	return decode[api.SamplesResponse](s.tb, w)
}

// project ensures the named projects exist.
func (s *server) projects(names ...string) {
	s.tb.Helper()
	for _, n := range names {
		if _, err := s.store.EnsureProject(context.Background(), n, t0.Add(-24*time.Hour)); err != nil {
			s.tb.Fatalf("EnsureProject(%q): %v", n, err)
		}
	}
}

// taskB builds a submitted task: task("train").of("vision").gpus(2).ready().
type taskB struct{ nt models.NewTask }

func task(name string) *taskB {
	return &taskB{nt: models.NewTask{Project: "vision", Name: name, Owner: "alice", GPUs: 1, Queue: models.QueueLong,
		Priority: "normal", Command: []string{"python", "train.py"}}}
}

func (b *taskB) of(project string) *taskB { b.nt.Project = project; return b }
func (b *taskB) gpus(n int) *taskB        { b.nt.GPUs = n; return b }
func (b *taskB) spec(s string) *taskB     { b.nt.Spec = s; return b }
func (b *taskB) ready() *taskB            { b.nt.DataReady = true; return b }

// create stores the task through the store at t.
func (s *server) create(b *taskB, at time.Time) models.Task {
	s.tb.Helper()
	t, _, err := s.store.CreateTask(context.Background(), b.nt, models.DefaultTaskLimits, at)
	if err != nil {
		s.tb.Fatalf("CreateTask(%q): %v", b.nt.Name, err)
	}
	return t
}

// gpuIDs maps GPU UUIDs to their row ids.
func (s *server) gpuIDs(uuids ...string) []int64 {
	s.tb.Helper()
	nodes, err := s.store.Nodes(context.Background())
	if err != nil {
		s.tb.Fatalf("Nodes: %v", err)
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
			s.tb.Fatalf("no GPU %q", u)
		}
		out[i] = id
	}
	return out
}

// place gives the GPUs to the queued task at at.
func (s *server) place(t models.Task, at time.Time, uuids ...string) {
	s.tb.Helper()
	if err := s.store.PlaceTask(context.Background(), t.ID, s.gpuIDs(uuids...), false, "test", at); err != nil {
		s.tb.Fatalf("PlaceTask(%d, %v): %v", t.ID, uuids, err)
	}
}

// boardGPU returns the current state of one GPU as the store holds it.
func (s *server) boardGPU(uuid string) models.BoardGPU {
	s.tb.Helper()
	rows, err := s.store.BoardGPUs(context.Background(), models.BoardFilter{})
	if err != nil {
		s.tb.Fatalf("BoardGPUs: %v", err)
	}
	for _, r := range rows {
		if r.UUID == uuid {
			return r
		}
	}
	s.tb.Fatalf("no GPU %q on the board", uuid)
	return models.BoardGPU{}
}

// taskCount is how many tasks the store holds.
func (s *server) taskCount() int {
	s.tb.Helper()
	ts, err := s.store.Tasks(context.Background(), models.TaskFilter{Limit: 1000})
	if err != nil {
		s.tb.Fatalf("Tasks: %v", err)
	}
	return len(ts)
}

// forEachDB runs f on a server over a fresh SQLite store and, when KASHI_TEST_PG_DSN is set,
// over a fresh Postgres store.
func forEachDB(t *testing.T, f func(t *testing.T, s *server)) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, st *models.Store) {
		f(t, newServerOn(t, st, testCfg()))
	})
}

// newStore opens a fresh SQLite store.
func newStore(tb testing.TB) *models.Store { return modelstest.SQLite(tb, models.Options{}) }

// jsonStrict decodes body into v, refusing unknown fields and trailing data.
func jsonStrict(body string, v any) error {
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

// clock is the handlers' clock.
func (s *server) clock() time.Time { return *s.now.Load() }

// readings maps wire samples onto the store's readings, for tests that write to the store
// directly.
func readings(ss []api.Sample) []models.Reading {
	out := make([]models.Reading, len(ss))
	for i, s := range ss {
		out[i] = models.Reading{UUID: s.UUID, TS: s.TS, MemoryUsedMiB: s.MemoryUsedMiB, UtilPct: s.UtilPct, TempC: s.TempC, PowerW: s.PowerW}
	}
	return out
}
