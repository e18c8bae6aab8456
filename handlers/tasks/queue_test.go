package tasks_test

// Tests of the queue page, the queue API and the submit form, through the real router over a
// real store and the real scheduler loop (read-only: no test runs a tick). Every name here
// starts with q so that it cannot clash with the other files of the package.

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"
	"github.com/labstack/echo/v4"

	"kashi/handlers"
	"kashi/models"
	"kashi/models/modelstest"
	"kashi/scheduler"
	"kashi/web"
	"kashi/web/webtest"
)

// qT0 is the fixed "now" of the queue tests: a Monday morning, outside the off-peak window.
var qT0 = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

// qEnv is the router over a fresh SQLite store with the real scheduler loop as the handlers'
// Scheduler, and a clock fixed at qT0.
type qEnv struct {
	t     *testing.T
	store *models.Store
	e     *echo.Echo
	token string
	loop  *scheduler.Loop
}

func newQEnv(t *testing.T) *qEnv {
	t.Helper()
	store := modelstest.SQLite(t, models.Options{})
	store.SetDataRoots([]string{webtest.DataRoot})
	clock := func() time.Time { return qT0 }
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	loop := scheduler.NewLoop(store, scheduler.LoopConfig{Policy: scheduler.DefaultPolicy(time.UTC), Now: clock, Logger: log})
	cfg := handlers.Config{IdleAfter: 30 * time.Minute, SaturatedAfter: 30 * time.Minute, StaleAfter: 2 * time.Minute,
		TaskLimits: models.DefaultTaskLimits}
	return &qEnv{t: t, store: store, loop: loop, token: webtest.AdminToken(t, store),
		e: web.New(web.NewAreas(store, &webtest.FakeSched{Loop: loop}, cfg, clock), false, log)}
}

// qRequest sends one request; hdr holds header pairs.
func (q *qEnv) qRequest(method, path, contentType, body string, hdr ...string) *httptest.ResponseRecorder {
	q.t.Helper()
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	if contentType != "" {
		r.Header.Set("Content-Type", contentType)
	}
	r.Header.Set("Authorization", "Bearer "+q.token)
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	q.e.ServeHTTP(w, r)
	return w
}

func (q *qEnv) qGet(path string, hdr ...string) *httptest.ResponseRecorder {
	q.t.Helper()
	return q.qRequest(http.MethodGet, path, "", "", hdr...)
}

func (q *qEnv) qPostForm(path string, form url.Values, hdr ...string) *httptest.ResponseRecorder {
	q.t.Helper()
	return q.qRequest(http.MethodPost, path, "application/x-www-form-urlencoded", form.Encode(), hdr...)
}

// qRegister registers a node of count cards named gpuName in pool.
func (q *qEnv) qRegister(host, pool, gpuName string, memMiB int64, count int) {
	q.t.Helper()
	req := models.NodeRegistration{Hostname: host, Pool: pool}
	for i := range count {
		req.GPUs = append(req.GPUs, models.GPUInfo{UUID: "GPU-" + host + "-" + string(rune('a'+i)), Index: i,
			Name: gpuName, MemoryTotalMiB: memMiB})
	}
	_, tokenHash := models.NewToken("kn_")
	if _, err := q.store.RegisterNode(context.Background(), req, tokenHash, qT0); err != nil {
		q.t.Fatalf("RegisterNode(%s): %v", host, err)
	}
}

// qCreate stores a task submitted at.
func (q *qEnv) qCreate(nt models.NewTask, at time.Time) models.Task {
	q.t.Helper()
	if nt.Queue == "" {
		nt.Queue = models.QueueLong
	}
	if nt.Priority == "" {
		nt.Priority = "normal"
	}
	if nt.Owner == "" {
		nt.Owner = "ana"
	}
	if len(nt.Command) == 0 {
		nt.Command = []string{"python", "train.py"}
	}
	t, _, err := q.store.CreateTask(context.Background(), nt, models.DefaultTaskLimits, at)
	if err != nil {
		q.t.Fatalf("CreateTask(%s): %v", nt.Name, err)
	}
	return t
}

// qPlace gives task every card of host, from at.
func (q *qEnv) qPlace(task models.Task, host string, at time.Time) {
	q.t.Helper()
	ctx := context.Background()
	nodes, err := q.store.Nodes(ctx)
	if err != nil {
		q.t.Fatal(err)
	}
	var ids []int64
	for _, n := range nodes {
		if n.Hostname == host {
			for _, g := range n.GPUs {
				ids = append(ids, g.ID)
			}
		}
	}
	if err := q.store.PlaceTask(ctx, task.ID, ids, false, "test", at); err != nil {
		q.t.Fatalf("PlaceTask(%d): %v", task.ID, err)
	}
}

// qTaskCount is how many tasks the store holds.
func (q *qEnv) qTaskCount() int {
	q.t.Helper()
	rows, err := q.store.Tasks(context.Background(), models.TaskFilter{Limit: 1000})
	if err != nil {
		q.t.Fatal(err)
	}
	return len(rows)
}

func qID(id int64) string { return strconv.FormatInt(id, 10) }

func qDoc(t *testing.T, w *httptest.ResponseRecorder) *goquery.Document {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(w.Body.String()))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return doc
}

// qHTMLName is a task name full of markup; the page must show it as text.
const qHTMLName = `<script>alert("x")</script><b>bold</b>`

// qTasks are the fixture's tasks.
type qTasks struct {
	running, short, big, noData, markup models.Task
}

// qFleet is one A100 node (4 cards, all held by a running task that is expected to end at
// qT0+30m and must end by qT0+9h30m) and one free H800 node (8 cards), with four pending tasks:
//
//	short  short lane, 2 × A100, ready                → no free A100-80G, ETA qT0+30m
//	big    long lane, 4 × A100, ready                 → no free A100-80G (H800s are free)
//	noData long lane, 1 × H800, data not ready        → data not ready, no ETA
//	markup long lane, 2 × any spec, ready, HTML name  → starts now on the H800 node
func qFleet(q *qEnv) qTasks {
	q.t.Helper()
	ctx := context.Background()
	for _, p := range []string{"llm", "vision"} {
		if _, err := q.store.EnsureProject(ctx, p, qT0.Add(-time.Hour)); err != nil {
			q.t.Fatal(err)
		}
	}
	q.qRegister("qa-a100-1", "a100", "NVIDIA A100-SXM4-80GB", 81920, 4)
	q.qRegister("qa-h800-1", "h800", "NVIDIA H800", 81559, 8)
	var ts qTasks
	ts.running = q.qCreate(models.NewTask{Project: "llm", Name: "pretrain", GPUs: 4, Spec: "A100-80G", EstGPUHours: 4,
		MaxRuntime: 10 * time.Hour, DataReady: true}, qT0.Add(-40*time.Minute))
	q.qPlace(ts.running, "qa-a100-1", qT0.Add(-30*time.Minute))
	ts.short = q.qCreate(models.NewTask{Project: "vision", Name: "eval-quick", GPUs: 2, Spec: "A100-80G",
		Queue: models.QueueShort, MaxRuntime: time.Hour, DataReady: true}, qT0.Add(-25*time.Minute))
	ts.big = q.qCreate(models.NewTask{Project: "vision", Name: "train-big", GPUs: 4, Spec: "A100-80G", EstGPUHours: 8,
		MaxRuntime: 10 * time.Hour, DataReady: true}, qT0.Add(-20*time.Minute))
	ts.noData = q.qCreate(models.NewTask{Project: "vision", Name: "needs-data", GPUs: 1, Spec: "H800-80G",
		DataCheck: models.DataCheck{Path: "/data/set"}}, qT0.Add(-15*time.Minute))
	// Its check answers: the data is not there yet.
	if err := q.store.MarkDataChecked(ctx, []int64{ts.noData.ID}, qT0.Add(-time.Minute)); err != nil {
		q.t.Fatal(err)
	}
	ts.markup = q.qCreate(models.NewTask{Project: "vision", Name: qHTMLName, GPUs: 2, DataReady: true},
		qT0.Add(-10*time.Minute))
	return ts
}

func TestQueuePage(t *testing.T) {
	q := newQEnv(t)
	ts := qFleet(q)
	w := q.qGet("/queue")
	if w.Code != http.StatusOK {
		t.Fatalf("GET /queue = %d, want 200:\n%s", w.Code, w.Body)
	}
	doc := qDoc(t, w)

	var lanes []string
	doc.Find(`[data-testid="queue-lane"]`).Each(func(_ int, s *goquery.Selection) {
		lanes = append(lanes, s.AttrOr("data-lane", ""))
	})
	if diff := cmp.Diff([]string{"short", "long", "service"}, lanes); diff != "" {
		t.Errorf("lanes mismatch (-want +got):\n%s", diff)
	}

	type row struct {
		ID, Lane, Reason, Text string
	}
	var got []row
	doc.Find(`[data-testid="queue-lane"]`).Each(func(_ int, lane *goquery.Selection) {
		lane.Find(`[data-testid="queue-row"]`).Each(func(_ int, s *goquery.Selection) {
			got = append(got, row{s.AttrOr("data-task-id", ""), lane.AttrOr("data-lane", ""), s.AttrOr("data-reason", ""),
				strings.TrimSpace(s.Find(`[data-testid="reason"]`).Text())})
		})
	})
	id := func(t models.Task) string { return qID(t.ID) }
	want := []row{
		{id(ts.short), "short", "no-free-gpus", "No free A100-80G"},
		{id(ts.markup), "long", "starting", "Starting: cards are free"},
		{id(ts.big), "long", "no-free-gpus", "No free A100-80G"},
		{id(ts.noData), "long", "data-not-ready", "Data not ready"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("queue rows mismatch (-want +got):\n%s", diff)
	}

	short := doc.Find(`[data-testid="queue-row"][data-task-id="` + id(ts.short) + `"]`)
	if got := strings.TrimSpace(short.Find(`.pos`).Text()); got != "1" {
		t.Errorf("short task position = %q, want 1", got)
	}
	if got := short.Find(`[data-testid="eta"] .p50`).Text(); got != "in ~30m" {
		t.Errorf("short task ETA p50 = %q, want %q", got, "in ~30m")
	}
	noData := doc.Find(`[data-testid="queue-row"][data-task-id="` + id(ts.noData) + `"]`)
	if got := noData.Find(`[data-testid="eta"] .p50`).Text(); got != "unknown" {
		t.Errorf("data-waiting task ETA p50 = %q, want unknown", got)
	}
	if got := noData.Find(`.ready`).Text(); got != "Waiting for data" {
		t.Errorf("data-waiting task readiness = %q", got)
	}

	if n := doc.Find(`[data-testid="eta-method"]`).Length(); n != 1 {
		t.Errorf("found %d ETA method notes, want 1", n)
	}
	if got := doc.Find(`[data-testid="running-row"]`).AttrOr("data-task-id", ""); got != id(ts.running) {
		t.Errorf("running row task = %q, want %s", got, id(ts.running))
	}
	if got := doc.Find(`[data-testid="running-row"] .host`).Text(); got != "qa-a100-1" {
		t.Errorf("running row node = %q, want qa-a100-1", got)
	}

	capacity := map[string][2]string{}
	doc.Find(`[data-testid="free-capacity"] [data-testid="capacity-row"]`).Each(func(_ int, s *goquery.Selection) {
		capacity[s.AttrOr("data-spec", "")] = [2]string{s.Find(`[data-testid="capacity-free"]`).Text(),
			s.Find(`[data-testid="capacity-largest"]`).Text()}
	})
	// The task starting on H800 holds its 2 cards: 6 are left for the next.
	wantCap := map[string][2]string{"A100-80G": {"0", "0"}, "H800-80G": {"6", "6"}}
	if diff := cmp.Diff(wantCap, capacity); diff != "" {
		t.Errorf("free capacity (free, largest) mismatch (-want +got):\n%s", diff)
	}
	if n := doc.Find(`form[data-testid="task-form"]`).Length(); n != 1 {
		t.Errorf("found %d submit forms, want 1", n)
	}
	if got := doc.Find(`select[name="project"] option`).Length(); got != 2 {
		t.Errorf("project select has %d options, want 2", got)
	}
}

func TestQueuePageChinese(t *testing.T) {
	q := newQEnv(t)
	ts := qFleet(q)
	doc := qDoc(t, q.qGet("/queue", "Accept-Language", "zh-CN,zh;q=0.9"))
	reasons := map[string]string{}
	doc.Find(`[data-testid="queue-row"]`).Each(func(_ int, s *goquery.Selection) {
		reasons[s.AttrOr("data-task-id", "")] = s.Find(`[data-testid="reason"]`).Text()
	})
	want := map[string]string{
		qID(ts.short.ID): "无空闲 A100-80G", qID(ts.big.ID): "无空闲 A100-80G",
		qID(ts.noData.ID): "数据未就绪", qID(ts.markup.ID): "即将启动：有空闲卡",
	}
	if diff := cmp.Diff(want, reasons); diff != "" {
		t.Errorf("zh-CN reasons mismatch (-want +got):\n%s", diff)
	}
	if got := doc.Find(`[data-testid="queue-row"][data-task-id="` + qID(ts.short.ID) + `"] .p50`).Text(); got != "约 30分钟后" {
		t.Errorf("zh-CN ETA = %q, want %q", got, "约 30分钟后")
	}
}

func TestQueuePagePartial(t *testing.T) {
	q := newQEnv(t)
	qFleet(q)
	w := q.qGet("/queue", "HX-Request", "true")
	if w.Code != http.StatusOK {
		t.Fatalf("GET /queue (htmx) = %d, want 200", w.Code)
	}
	body := w.Body.String()
	if strings.Contains(body, "<html") || strings.Contains(body, `data-testid="task-form"`) {
		t.Errorf("the htmx answer is not a fragment of the lanes:\n%s", body)
	}
	doc := qDoc(t, w)
	lanes := doc.Find(`#queue-lanes`)
	if _, refresh := lanes.Attr("data-refresh"); lanes.Length() != 1 || lanes.AttrOr("hx-trigger", "") != "every 10s" || !refresh {
		t.Errorf("#queue-lanes missing or not polling: %d, %q", lanes.Length(), lanes.AttrOr("hx-trigger", ""))
	}
	if n := doc.Find(`[data-testid="queue-lane"]`).Length(); n != 3 {
		t.Errorf("found %d lanes, want 3: short, long and service", n)
	}
	if n := doc.Find(`[data-testid="queue-row"]`).Length(); n != 4 {
		t.Errorf("found %d queue rows, want 4", n)
	}
	if got := doc.Find(`[data-testid="free-capacity"]`).AttrOr("hx-swap-oob", ""); got != "true" {
		t.Errorf("free capacity hx-swap-oob = %q, want true", got)
	}
}

// qQueueTask is an entry of GET /api/v1/queue.
type qQueueTask struct {
	ID         int64      `json:"id"`
	Name       string     `json:"name"`
	Project    string     `json:"project"`
	GPUs       int        `json:"gpus"`
	State      string     `json:"state"`
	Position   int        `json:"position"`
	Lane       string     `json:"lane"`
	ETAP50     *time.Time `json:"eta_p50"`
	ETAP90     *time.Time `json:"eta_p90"`
	Reason     string     `json:"reason"`
	ReasonText string     `json:"reason_text"`
}

type qQueueJSON struct {
	Now      time.Time    `json:"now"`
	Tasks    []qQueueTask `json:"tasks"`
	Capacity []struct {
		Spec        string `json:"spec"`
		Total       int    `json:"total"`
		Held        int    `json:"held"`
		Free        int    `json:"free"`
		LargestFree int    `json:"largest_free"`
	} `json:"capacity"`
}

func TestQueueAPI(t *testing.T) {
	q := newQEnv(t)
	ts := qFleet(q)
	before, err := q.store.ActiveTasks(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	w := q.qGet("/api/v1/queue")
	if w.Code != http.StatusOK {
		t.Fatalf("GET /api/v1/queue = %d, want 200:\n%s", w.Code, w.Body)
	}
	var got qQueueJSON
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
		t.Fatalf("decode %s: %v", w.Body, err)
	}
	at := func(d time.Duration) *time.Time { t := qT0.Add(d); return &t }
	type entry struct {
		ID       int64
		Lane     string
		Position int
		Reason   string
		P50, P90 *time.Time
	}
	var entries []entry
	for _, e := range got.Tasks {
		entries = append(entries, entry{e.ID, e.Lane, e.Position, e.Reason, e.ETAP50, e.ETAP90})
	}
	// The running task ends at qT0+30m as expected (1h estimate) and by qT0+9h30m at the latest.
	// The short task takes 2 of its cards then for up to 1h; the big one needs all 4.
	want := []entry{
		{ts.short.ID, "short", 1, "no-free-gpus", at(30 * time.Minute), at(9*time.Hour + 30*time.Minute)},
		{ts.markup.ID, "long", 0, "starting", at(0), at(0)},
		{ts.big.ID, "long", 1, "no-free-gpus", at(90 * time.Minute), at(10*time.Hour + 30*time.Minute)},
		{ts.noData.ID, "long", 2, "data-not-ready", nil, nil},
	}
	if diff := cmp.Diff(want, entries); diff != "" {
		t.Errorf("GET /api/v1/queue entries mismatch (-want +got):\n%s", diff)
	}
	for _, e := range got.Tasks {
		if e.ID == ts.short.ID && (e.ReasonText != "No free A100-80G" || e.Name != "eval-quick" ||
			e.Project != "vision" || e.GPUs != 2 || e.State != models.TaskQueued) {
			t.Errorf("short task entry = %+v", e)
		}
	}
	type capRow struct {
		Spec                           string
		Total, Held, Free, LargestFree int
	}
	var caps []capRow
	for _, c := range got.Capacity {
		caps = append(caps, capRow{c.Spec, c.Total, c.Held, c.Free, c.LargestFree})
	}
	if diff := cmp.Diff([]capRow{{"A100-80G", 4, 4, 0, 0}, {"H800-80G", 8, 2, 6, 6}}, caps); diff != "" {
		t.Errorf("capacity mismatch (-want +got):\n%s", diff)
	}

	// Read-only: no task changed (no placement, no stored reason).
	after, err := q.store.ActiveTasks(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("GET /api/v1/queue changed the tasks (-before +after):\n%s", diff)
	}
}

// qForm is a valid submit of the form.
func qForm() url.Values {
	return url.Values{
		"idempotency_key": {"form-test-1"},
		"project":         {"vision"},
		"name":            {"finetune"},
		"owner":           {"bo"},
		"gpus":            {"2"},
		"specs":           {"H800-80G"},
		"queue":           {"long"},
		"priority":        {"high"},
		"est_gpu_hours":   {"3.5"},
		"max_runtime_h":   {"4"},
		"command":         {"python\r\ntrain.py\r\n\r\n--note\r\nhello world; rm -rf /\r\n"},
		"env":             {"A=1\nB=x=y\n"},
		"workdir":         {"/work"},
		"data_check":      {"https://data.example/ready"},
		"deferrable":      {"on"},
	}
}

func TestQueueFormSubmit(t *testing.T) {
	q := newQEnv(t)
	qFleet(q)
	n := q.qTaskCount()
	w := q.qPostForm("/queue/tasks", qForm())
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/queue" {
		t.Fatalf("POST /queue/tasks = %d Location %q, want 303 /queue:\n%s", w.Code, w.Header().Get("Location"), w.Body)
	}
	if got := q.qTaskCount(); got != n+1 {
		t.Fatalf("tasks after submit = %d, want %d", got, n+1)
	}
	rows, err := q.store.Tasks(context.Background(), models.TaskFilter{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	r := rows[0]
	type stored struct {
		Project, Name, Owner, Spec, Queue, Priority, Command, Env, Workdir, DataCheck, State string
		GPUs                                                                                 int
		Est                                                                                  float64
		MaxRuntimeS                                                                          int64
		DataReady, Deferrable                                                                bool
	}
	got := stored{r.Project, r.Name, r.Owner, r.Spec, r.Queue, r.Priority, r.Command, r.Env, r.Workdir, r.DataCheck,
		r.State, r.GPUs, r.EstGPUHours, r.MaxRuntimeS, r.DataReady, r.Deferrable}
	want := stored{"vision", "finetune", "bo", "H800-80G", "long", "high",
		`["python","train.py","--note","hello world; rm -rf /"]`, `{"A":"1","B":"x=y"}`, "/work",
		`{"url":"https://data.example/ready"}`, models.TaskWaitingData, 2, 3.5, 4 * 3600, false, true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stored task mismatch (-want +got):\n%s", diff)
	}

	// The same form posted again (a double click) stores nothing more.
	if w := q.qPostForm("/queue/tasks", qForm()); w.Code != http.StatusSeeOther {
		t.Errorf("second POST = %d, want 303", w.Code)
	}
	if got := q.qTaskCount(); got != n+1 {
		t.Errorf("tasks after a repeated submit = %d, want %d", got, n+1)
	}
}

func TestQueueFormSubmitHTMX(t *testing.T) {
	q := newQEnv(t)
	qFleet(q)
	w := q.qPostForm("/queue/tasks", qForm(), "HX-Request", "true")
	if w.Code != http.StatusOK {
		t.Fatalf("POST /queue/tasks (htmx) = %d, want 200:\n%s", w.Code, w.Body)
	}
	doc := qDoc(t, w)
	if got := doc.Find(`[data-testid="form-notice"]`).Text(); !strings.HasPrefix(got, "Task #") {
		t.Errorf("success notice = %q", got)
	}
	if got := doc.Find(`#queue-lanes`).AttrOr("hx-swap-oob", ""); got != "true" {
		t.Errorf("refreshed lanes hx-swap-oob = %q, want true", got)
	}
	if n := doc.Find(`[data-testid="queue-row"]`).Length(); n != 5 {
		t.Errorf("refreshed lanes show %d tasks, want 5", n)
	}
	if got := doc.Find(`input[name="idempotency_key"]`).AttrOr("value", ""); got == "" || got == "form-test-1" {
		t.Errorf("fresh form idempotency key = %q, want a new one", got)
	}
	if got := doc.Find(`select[name="project"] option[selected]`).AttrOr("value", ""); got != "vision" {
		t.Errorf("fresh form project = %q, want the last one (vision)", got)
	}
}

func TestQueueFormErrors(t *testing.T) {
	tests := map[string]struct {
		set   map[string]string
		field string // the input whose slot shows the problem
		want  string // part of the message
	}{
		"more GPUs than a node pool": {map[string]string{"gpus": "64"}, "gpus", "must be between 1 and 8"},
		"GPUs not a number":          {map[string]string{"gpus": "two"}, "gpus", "Enter a whole number."},
		"unknown project":            {map[string]string{"project": "nope"}, "project", "unknown project"},
		"missing name":               {map[string]string{"name": ""}, "name", "is required"},
		"runtime over the short lane": {map[string]string{"queue": "short", "max_runtime_h": "5"},
			"max_runtime_h", "Short lane (fast): at most 2h; you asked 5h"},
		"runtime not a number":   {map[string]string{"max_runtime_h": "soon"}, "max_runtime_h", "Enter a number."},
		"no command":             {map[string]string{"command": "\n  \n"}, "command", "must be a list of 1 to 1,024 arguments"},
		"env not KEY=VALUE":      {map[string]string{"env": "A=1\nBROKEN\n"}, "env", "Line 2 is not KEY=VALUE."},
		"env bad name":           {map[string]string{"env": "1X=2"}, "env", "is not a variable name"},
		"relative workdir":       {map[string]string{"workdir": "work"}, "workdir", "must be an absolute path"},
		"ftp data check":         {map[string]string{"data_check": "ftp://x/y"}, "data_check", "must be an http or https URL"},
		"service without a port": {map[string]string{"model": "qwen", "max_runtime_h": ""}, "metrics_port", "must be a port"},
		"service port not a number": {map[string]string{"model": "qwen", "metrics_port": "http"}, "metrics_port",
			"Enter a whole number."},
		"service health path not a path": {map[string]string{"model": "qwen", "metrics_port": "8000", "max_runtime_h": "",
			"health_path": "health"}, "health_path", "must be a URL path such as /health"},
		"service with a runtime": {map[string]string{"model": "qwen", "metrics_port": "8000"}, "max_runtime_h",
			"a service runs until it is stopped"},
	}
	q := newQEnv(t)
	qFleet(q)
	n := q.qTaskCount()
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			form := qForm()
			for k, v := range tc.set {
				form.Set(k, v)
			}
			for _, hx := range []bool{false, true} {
				var hdr []string
				if hx {
					hdr = []string{"HX-Request", "true"}
				}
				w := q.qPostForm("/queue/tasks", form, hdr...)
				if w.Code != http.StatusUnprocessableEntity {
					t.Fatalf("POST /queue/tasks (htmx %v) = %d, want 422", hx, w.Code)
				}
				doc := qDoc(t, w)
				if whole := strings.Contains(w.Body.String(), "<html"); whole == hx {
					t.Errorf("htmx %v: answered with a whole page: %v", hx, whole)
				}
				slot := doc.Find(`[data-testid="field-error"][data-field="` + tc.field + `"]`)
				if got := slot.Text(); !strings.Contains(got, tc.want) {
					t.Errorf("htmx %v: message beside %s = %q, want it to contain %q", hx, tc.field, got, tc.want)
				}
				// The message sits in the input's own field, next to it.
				if slot.Closest(`[data-field="`+tc.field+`"].form-field`).Find(`[name="`+tc.field+`"]`).Length() != 1 {
					t.Errorf("htmx %v: the message is not beside the %s input", hx, tc.field)
				}
				if got := doc.Find(`[data-testid="field-error"]:not(:empty)`).Length(); got != 1 {
					t.Errorf("htmx %v: %d inputs show a problem, want 1", hx, got)
				}
				// What was typed stays.
				if got := doc.Find(`input[name="owner"]`).AttrOr("value", ""); got != "bo" {
					t.Errorf("htmx %v: owner input = %q, want the typed value", hx, got)
				}
			}
			if got := q.qTaskCount(); got != n {
				t.Errorf("tasks after refused submits = %d, want %d", got, n)
			}
		})
	}
}

func TestQueueFormValidate(t *testing.T) {
	q := newQEnv(t)
	qFleet(q)
	n := q.qTaskCount()

	w := q.qPostForm("/queue/tasks/validate", qForm(), "HX-Request", "true")
	if w.Code != http.StatusOK {
		t.Fatalf("validate a good form = %d, want 200:\n%s", w.Code, w.Body)
	}
	doc := qDoc(t, w)
	if doc.Find(`[data-testid="form-valid"]`).Length() != 1 {
		t.Errorf("validate a good form: no all-clear:\n%s", w.Body)
	}

	// A half-filled form: only what is filled in is checked.
	w = q.qPostForm("/queue/tasks/validate", url.Values{"project": {"vision"}, "gpus": {"3"}, "specs": {"A100-80G"}})
	if w.Code != http.StatusOK {
		t.Errorf("validate a half-filled form = %d, want 200:\n%s", w.Code, w.Body)
	}

	bad := qForm()
	bad.Set("gpus", "9")
	bad.Set("specs", "A100-80G")
	w = q.qPostForm("/queue/tasks/validate", bad, "HX-Request", "true")
	if w.Code != http.StatusUnprocessableEntity {
		t.Fatalf("validate a bad form = %d, want 422", w.Code)
	}
	doc = qDoc(t, w)
	slot := doc.Find(`#err-gpus`)
	if slot.AttrOr("hx-swap-oob", "") != "true" || !strings.Contains(slot.Text(), "must be between 1 and 4") {
		t.Errorf("validate: #err-gpus = %q (oob %q)", slot.Text(), slot.AttrOr("hx-swap-oob", ""))
	}
	if got := doc.Find(`#err-name`).AttrOr("hx-swap-oob", ""); got != "true" {
		t.Errorf("validate: the other slots are not cleared out of band (#err-name oob %q)", got)
	}
	if got := q.qTaskCount(); got != n {
		t.Errorf("tasks after validating = %d, want %d (validation stores nothing)", got, n)
	}
}

func TestQueuePageEscapes(t *testing.T) {
	q := newQEnv(t)
	ts := qFleet(q)
	w := q.qGet("/queue")
	body := w.Body.String()
	if strings.Contains(body, `<script>alert(`) || strings.Contains(body, "<b>bold</b>") {
		t.Errorf("the task name's markup reached the page unescaped")
	}
	doc := qDoc(t, w)
	name := doc.Find(`[data-testid="queue-row"][data-task-id="` + qID(ts.markup.ID) + `"] [data-testid="task-name"]`)
	if got := name.Text(); got != qHTMLName {
		t.Errorf("task name shown as %q, want the text %q", got, qHTMLName)
	}
	if n := doc.Find(`main script, main b`).Length(); n != 0 {
		t.Errorf("found %d script or b elements in main, want 0", n)
	}
}

// After a tick the queue shows that tick's plan without deciding again; a task submitted
// since is listed as new until the next tick.
func TestQueueAPIShowsTheLastTick(t *testing.T) {
	q := newQEnv(t)
	ts := qFleet(q)
	if _, err := q.loop.RunOnce(context.Background(), qT0); err != nil {
		t.Fatal(err)
	}
	late := q.qCreate(models.NewTask{Project: "vision", Name: "late", GPUs: 1, Spec: "H800-80G", DataReady: true}, qT0)
	var got qQueueJSON
	if err := json.Unmarshal(q.qGet("/api/v1/queue").Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	reasons := map[int64]string{}
	for _, e := range got.Tasks {
		reasons[e.ID] = e.Reason
	}
	want := map[int64]string{ts.short.ID: "no-free-gpus", ts.big.ID: "no-free-gpus", ts.noData.ID: "data-not-ready", late.ID: "new"}
	if diff := cmp.Diff(want, reasons); diff != "" {
		t.Errorf("queue after a tick and a submit (-want +got):\n%s", diff)
	}
	if _, err := q.loop.RunOnce(context.Background(), qT0.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(q.qGet("/api/v1/queue").Body.Bytes(), &got)
	for _, e := range got.Tasks {
		if e.ID == late.ID {
			t.Errorf("after the next tick the late task still waits: %+v", e)
		}
	}
}

// TestQueueFormSubmitsService: the form with a model submits an inference service of the
// replicas asked, its group open when it has a problem.
func TestQueueFormSubmitsService(t *testing.T) {
	q := newQEnv(t)
	qFleet(q)
	form := qForm()
	form.Set("max_runtime_h", "")
	form.Set("model", "qwen2.5-7b")
	form.Set("replicas", "2")
	form.Set("metrics_port", "8000")
	form.Set("ttft_target_ms", "250")
	if w := q.qPostForm("/queue/tasks", form); w.Code != http.StatusSeeOther {
		t.Fatalf("POST /queue/tasks = %d, want 303:\n%s", w.Code, w.Body)
	}
	rows, err := q.store.Tasks(context.Background(), models.TaskFilter{Limit: 2})
	if err != nil || len(rows) != 2 {
		t.Fatalf("Tasks = %d, %v", len(rows), err)
	}
	for _, r := range rows {
		if !r.Service() || r.Model != "qwen2.5-7b" || r.Replicas != 2 || r.TTFTTargetMS != 250 || r.ServiceID == nil {
			t.Errorf("replica %d = kind %q model %q replicas %d target %d service %v; want a replica of the service",
				r.ID, r.Kind, r.Model, r.Replicas, r.TTFTTargetMS, r.ServiceID)
		}
	}
	form.Set("idempotency_key", "form-test-2")
	form.Set("replicas", "40")
	w := q.qPostForm("/queue/tasks", form)
	if _, open := qDoc(t, w).Find(`[data-testid="form-service"]`).Attr("open"); w.Code != http.StatusUnprocessableEntity || !open {
		t.Errorf("too many replicas = %d, service group open %v; want 422 with the group open", w.Code, open)
	}
}
