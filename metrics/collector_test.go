package metrics

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"kashi/api"
	"kashi/billing"
	"kashi/models"
	"kashi/scheduler"
)

var t0 = time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)

var marks = models.GPUMarks{StaleAfter: 2 * time.Minute, IdleAfter: 30 * time.Minute, SaturatedAfter: 30 * time.Minute}

// fakeStore serves fixed rows.
type fakeStore struct {
	rows   []models.BoardGPU
	pools  []models.ConfiguredPool
	sizes  map[int64]models.PoolSizeSample
	states map[int64]models.PoolScaleState
	err    error
}

func (f *fakeStore) BoardGPUs(context.Context, models.BoardFilter) ([]models.BoardGPU, error) {
	return f.rows, f.err
}
func (f *fakeStore) ConfiguredPools(context.Context) ([]models.ConfiguredPool, error) {
	return f.pools, nil
}
func (f *fakeStore) LatestPoolSizes(context.Context) (map[int64]models.PoolSizeSample, error) {
	return f.sizes, nil
}
func (f *fakeStore) PoolScaleStates(context.Context) (map[int64]models.PoolScaleState, error) {
	return f.states, nil
}

func at(d time.Duration) *time.Time { t := t0.Add(d); return &t }

// gpu is a card of pool sampled at t0 minus ago; a project makes it held, idleFor idle.
func gpu(pool, project string, ago, idleFor time.Duration) models.BoardGPU {
	g := models.BoardGPU{Pool: pool, Project: project}
	g.Spec, g.SampledAt = "A100", at(-ago)
	if project != "" {
		g.TaskID = 1
	}
	if idleFor > 0 {
		g.IdleSince = at(-idleFor)
	}
	return g
}

func queueOf(entries ...scheduler.QueueEntry) QueueFunc { return queueWith(nil, entries...) }

// queueWith is a queue whose projects hold use.
func queueWith(use map[string]scheduler.Use, entries ...scheduler.QueueEntry) QueueFunc {
	return func(context.Context, time.Time) (scheduler.QueueView, error) {
		return scheduler.QueueView{Entries: entries, Use: use}, nil
	}
}

// gatherBoth gathers the state and the money as /metrics does for a scrape with the token:
// each from its own registry.
func gatherBoth(t *testing.T, c *Collector, m *Money) prometheus.Gatherer {
	state, money := prometheus.NewPedanticRegistry(), prometheus.NewPedanticRegistry()
	state.MustRegister(c)
	money.MustRegister(m)
	return prometheus.Gatherers{state, money}
}

func billsOf(bills ...billing.Bill) BillsFunc {
	return func(context.Context, time.Time) ([]billing.Bill, error) { return bills, nil }
}

// TestCollect checks each family's values on a small fleet, and that the page is clean by
// the Prometheus linter.
func TestCollect(t *testing.T) {
	store := &fakeStore{
		rows: []models.BoardGPU{
			gpu("a100", "", 10*time.Second, 0),
			gpu("a100", "nlp", 5*time.Second, 0),
			gpu("a100", "nlp", 5*time.Second, 40*time.Minute),
			gpu("a100", "cv", 20*time.Second, 10*time.Minute),
			gpu("a100", "cv", time.Hour, 0),
		},
		pools: []models.ConfiguredPool{{Pool: models.Pool{ID: 1, Name: "a100", Spec: "A100"}}, {Pool: models.Pool{ID: 2, Name: "h100", Spec: "H100"}}},
		sizes: map[int64]models.PoolSizeSample{1: {PoolID: 1, Size: 2, Desired: 3, DemandGPUs: 8}},
		// h100 stopped after 3 machines in a row failed to boot; a100 has none.
		states: map[int64]models.PoolScaleState{2: {PoolID: 2, BootFailures: 3, FailingSince: at(-time.Hour)}},
	}
	// The cards projects hold are the scheduler's count (the board's holders are not read).
	use := map[string]scheduler.Use{"nlp": {Total: 2, BySpec: map[string]int{"A100": 2}},
		"cv": {Total: 3, BySpec: map[string]int{"A100": 2, "H800": 1}}}
	queue := queueWith(use,
		scheduler.QueueEntry{Waiting: scheduler.Waiting{Lane: models.QueueShort}, Starting: true},
		scheduler.QueueEntry{Waiting: scheduler.Waiting{Lane: models.QueueShort}},
		scheduler.QueueEntry{Waiting: scheduler.Waiting{Lane: models.QueueShort}},
	)
	line := billing.Line{Spec: "A100", Breakdown: billing.Breakdown{Active: 3600, Idle: 600}}
	bills := billsOf(billing.Bill{Project: "nlp", TotalFen: 12345, Lines: []billing.Line{line, line}})
	cfg := Config{Marks: marks, Now: func() time.Time { return t0 }}
	g := gatherBoth(t, New(store, queue, cfg), NewMoney(bills, cfg))

	want := `
# HELP kashi_gpus GPUs by pool, spec and state (free, busy, idle, stale).
# TYPE kashi_gpus gauge
kashi_gpus{pool="a100",spec="A100",state="busy"} 1
kashi_gpus{pool="a100",spec="A100",state="free"} 1
kashi_gpus{pool="a100",spec="A100",state="idle"} 2
kashi_gpus{pool="a100",spec="A100",state="stale"} 1
kashi_gpus{pool="h100",spec="H100",state="busy"} 0
kashi_gpus{pool="h100",spec="H100",state="free"} 0
kashi_gpus{pool="h100",spec="H100",state="idle"} 0
kashi_gpus{pool="h100",spec="H100",state="stale"} 0
# HELP kashi_idle_gpu_longest_seconds The longest time a held GPU of the pool has been idle.
# TYPE kashi_idle_gpu_longest_seconds gauge
kashi_idle_gpu_longest_seconds{pool="a100"} 2400
kashi_idle_gpu_longest_seconds{pool="h100"} 0
# HELP kashi_idle_gpus_held GPUs held by a task and idle, by pool.
# TYPE kashi_idle_gpus_held gauge
kashi_idle_gpus_held{pool="a100"} 2
kashi_idle_gpus_held{pool="h100"} 0
# HELP kashi_ingest_lag_seconds Seconds since the newest GPU sample stored.
# TYPE kashi_ingest_lag_seconds gauge
kashi_ingest_lag_seconds 5
# HELP kashi_month_bill_yuan Bill totals of the current month so far, by project, in yuan.
# TYPE kashi_month_bill_yuan gauge
kashi_month_bill_yuan{project="nlp"} 123.45
# HELP kashi_month_card_seconds Card-seconds of the current month so far, by project, spec and class; restarts each month.
# TYPE kashi_month_card_seconds gauge
kashi_month_card_seconds{class="active",project="nlp",spec="A100"} 7200
kashi_month_card_seconds{class="idle",project="nlp",spec="A100"} 1200
# HELP kashi_pool_demand_gpus GPUs of ready demand waiting for the pool.
# TYPE kashi_pool_demand_gpus gauge
kashi_pool_demand_gpus{pool="a100"} 8
# HELP kashi_pool_boot_failures The pool's machines that failed to boot in a row.
# TYPE kashi_pool_boot_failures gauge
kashi_pool_boot_failures{pool="a100"} 0
kashi_pool_boot_failures{pool="h100"} 3
# HELP kashi_pool_desired_nodes Nodes the scaling loop wants the pool to have.
# TYPE kashi_pool_desired_nodes gauge
kashi_pool_desired_nodes{pool="a100"} 3
# HELP kashi_pool_failing 1 while the pool asks for no machine after too many failed to boot in a row, until an admin resumes it; else 0.
# TYPE kashi_pool_failing gauge
kashi_pool_failing{pool="a100"} 0
kashi_pool_failing{pool="h100"} 1
# HELP kashi_pool_size_nodes Nodes of the pool at the scaling loop's last tick.
# TYPE kashi_pool_size_nodes gauge
kashi_pool_size_nodes{pool="a100"} 2
# HELP kashi_project_gpus_held GPUs held by running tasks, by project and spec, as the scheduler counts them against quotas.
# TYPE kashi_project_gpus_held gauge
kashi_project_gpus_held{project="cv",spec="A100"} 2
kashi_project_gpus_held{project="cv",spec="H800"} 1
kashi_project_gpus_held{project="nlp",spec="A100"} 2
# HELP kashi_queue_tasks Tasks waiting in the queue after the last scheduler tick, by lane.
# TYPE kashi_queue_tasks gauge
kashi_queue_tasks{lane="long"} 0
kashi_queue_tasks{lane="short"} 2
`
	names := []string{"kashi_gpus", "kashi_idle_gpu_longest_seconds", "kashi_idle_gpus_held", "kashi_ingest_lag_seconds",
		"kashi_month_bill_yuan", "kashi_month_card_seconds", "kashi_pool_boot_failures", "kashi_pool_demand_gpus",
		"kashi_pool_desired_nodes", "kashi_pool_failing", "kashi_pool_size_nodes", "kashi_project_gpus_held", "kashi_queue_tasks"}
	if err := testutil.GatherAndCompare(g, strings.NewReader(want), names...); err != nil {
		t.Error(err)
	}
	problems, err := testutil.GatherAndLint(g)
	if err != nil || len(problems) > 0 {
		t.Errorf("GatherAndLint = %v, %v; want no problems", problems, err)
	}
}

// TestCollectThousandProjects checks that a thousand projects give at most MaxProjects
// project labels plus "other" in every family, that the busiest keep their own, and that
// nothing is lost in the folding.
func TestCollectThousandProjects(t *testing.T) {
	store := &fakeStore{}
	use := map[string]scheduler.Use{}
	var bills []billing.Bill
	for i := range 1000 {
		p := fmt.Sprintf("p%04d", i)
		use[p] = scheduler.Use{Total: 1 + i%7, BySpec: map[string]int{"A100": 1 + i%7}}
		line := billing.Line{Spec: "A100", Breakdown: billing.Breakdown{Active: int64(i), Idle: 1, NoData: 1}}
		bills = append(bills, billing.Bill{Project: p, TotalFen: int64(100 * i), Lines: []billing.Line{line}})
	}
	cfg := Config{Marks: marks, Now: func() time.Time { return t0 }}
	families, err := gatherBoth(t, New(store, queueWith(use), cfg), NewMoney(billsOf(bills...), cfg)).Gather()
	if err != nil {
		t.Fatal(err)
	}
	projects := map[string]map[string]bool{}
	sums := map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "project" {
					if projects[f.GetName()] == nil {
						projects[f.GetName()] = map[string]bool{}
					}
					projects[f.GetName()][l.GetValue()] = true
					sums[f.GetName()] += m.GetGauge().GetValue()
				}
			}
		}
	}
	for _, name := range []string{"kashi_project_gpus_held", "kashi_month_card_seconds", "kashi_month_bill_yuan"} {
		got := projects[name]
		if len(got) != DefaultMaxProjects+1 || !got[OtherProject] {
			t.Errorf("%s has %d project labels (other: %v), want %d with other", name, len(got), got[OtherProject], DefaultMaxProjects+1)
		}
	}
	if !projects["kashi_month_bill_yuan"]["p0999"] || projects["kashi_month_bill_yuan"]["p0000"] {
		t.Error("kashi_month_bill_yuan: want the largest bill p0999 labelled and the smallest p0000 in other")
	}
	want := map[string]float64{"kashi_project_gpus_held": 3997, "kashi_month_card_seconds": 999*1000/2 + 2000,
		"kashi_month_bill_yuan": 999 * 1000 / 2}
	if diff := cmp.Diff(want, sums); diff != "" {
		t.Errorf("sums over projects (-want +got):\n%s", diff)
	}
}

// TestCollectErrors checks that a part that fails is left out and flagged, and the others
// are still sent.
func TestCollectErrors(t *testing.T) {
	store := &fakeStore{err: errors.New("database is down")}
	failing := func(context.Context, time.Time) ([]billing.Bill, error) { return nil, errors.New("no prices") }
	cfg := Config{Marks: marks, Now: func() time.Time { return t0 }}
	c := New(store, queueOf(), cfg)
	g := gatherBoth(t, c, NewMoney(failing, cfg))
	want := `
# HELP kashi_metrics_scrape_errors_total Scrapes in which a part of the page could not be read (and was left out), by part.
# TYPE kashi_metrics_scrape_errors_total counter
kashi_metrics_scrape_errors_total{part="bills"} 1
kashi_metrics_scrape_errors_total{part="board"} 1
kashi_metrics_scrape_errors_total{part="pools"} 0
kashi_metrics_scrape_errors_total{part="queue"} 0
`
	if err := testutil.GatherAndCompare(g, strings.NewReader(want), "kashi_metrics_scrape_errors_total"); err != nil {
		t.Error(err)
	}
	// A counter: each scrape that fails adds one (three scrapes so far), so increase() sees a
	// failure however short.
	if _, err := g.Gather(); err != nil {
		t.Fatal(err)
	}
	if err := testutil.GatherAndCompare(g, strings.NewReader(strings.ReplaceAll(want, "} 1", "} 3")),
		"kashi_metrics_scrape_errors_total"); err != nil {
		t.Error(err)
	}
	if n := testutil.CollectAndCount(c, "kashi_queue_tasks"); n != len(models.Lanes) {
		t.Errorf("kashi_queue_tasks series = %d, want %d", n, len(models.Lanes))
	}
}

// TestBillCache checks that the bills are computed again only after BillsEvery.
func TestBillCache(t *testing.T) {
	calls := 0
	read := func(context.Context, time.Time) ([]billing.Bill, error) { calls++; return nil, nil }
	b := billCache{read: read, every: time.Minute}
	for _, d := range []time.Duration{0, 30 * time.Second, 59 * time.Second, time.Minute, 90 * time.Second} {
		if _, err := b.get(context.Background(), t0.Add(d)); err != nil {
			t.Fatal(err)
		}
	}
	if calls != 2 {
		t.Errorf("bills computed %d times in 90 s with a minute's cache, want 2", calls)
	}
}

// TestCollectEveryStateAndReason checks that every GPU state of a pool and spec, and every
// wait reason, is a series even when nothing is in it: a state or reason that has not happened
// yet must not be missing from dashboards and alerts.
func TestCollectEveryStateAndReason(t *testing.T) {
	store := &fakeStore{rows: []models.BoardGPU{gpu("h100", "nlp", 5*time.Second, 0)}}
	queue := queueOf(scheduler.QueueEntry{Waiting: scheduler.Waiting{Lane: models.QueueLong, Reason: scheduler.ReasonQuota}})
	c := New(store, queue, Config{Marks: marks, Now: func() time.Time { return t0 }})
	var want strings.Builder
	want.WriteString("# HELP kashi_gpus GPUs by pool, spec and state (free, busy, idle, stale).\n# TYPE kashi_gpus gauge\n")
	states := api.GPUStates()
	slices.Sort(states)
	for _, st := range states {
		n := 0
		if st == api.GPUBusy {
			n = 1
		}
		fmt.Fprintf(&want, "kashi_gpus{pool=\"h100\",spec=\"A100\",state=%q} %d\n", st, n)
	}
	want.WriteString("# HELP kashi_queue_waiting_tasks Tasks waiting in the queue after the last scheduler tick, by why they wait.\n# TYPE kashi_queue_waiting_tasks gauge\n")
	reasons := api.WaitReasons()
	slices.Sort(reasons)
	for _, r := range reasons {
		n := 0
		if r == api.ReasonQuota {
			n = 1
		}
		fmt.Fprintf(&want, "kashi_queue_waiting_tasks{reason=%q} %d\n", r, n)
	}
	if err := testutil.CollectAndCompare(c, strings.NewReader(want.String()), "kashi_gpus", "kashi_queue_waiting_tasks"); err != nil {
		t.Error(err)
	}
}

// TestMoneyNeedsTheScrapeToken: /metrics serves the month's bills only to a scrape with the
// scrape token; without a token set, to none.
func TestMoneyNeedsTheScrapeToken(t *testing.T) {
	cfg := Config{Marks: marks, Now: func() time.Time { return t0 }}
	state, money := prometheus.NewRegistry(), prometheus.NewRegistry()
	state.MustRegister(New(&fakeStore{rows: []models.BoardGPU{gpu("a100", "nlp", time.Second, 0)}}, queueOf(), cfg))
	line := billing.Line{Spec: "A100", Breakdown: billing.Breakdown{Active: 3600}}
	money.MustRegister(NewMoney(billsOf(billing.Bill{Project: "nlp", TotalFen: 100, Lines: []billing.Line{line}}), cfg))
	scrape := func(h http.Handler, auth string) string {
		r := httptest.NewRequest(http.MethodGet, "/metrics", nil)
		if auth != "" {
			r.Header.Set("Authorization", auth)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			t.Fatalf("scrape with %q = %d", auth, w.Code)
		}
		return w.Body.String()
	}
	withToken := Handler(state, money, "s3cret-scrape-token")
	for _, c := range []struct {
		h         http.Handler
		auth      string
		wantMoney bool
	}{
		{withToken, "", false},
		{withToken, "Bearer wrong", false},
		{withToken, "s3cret-scrape-token", false},
		{withToken, "Bearer s3cret-scrape-token", true},
		{Handler(state, money, ""), "Bearer ", false},
		{Handler(state, money, ""), "Bearer s3cret-scrape-token", false},
	} {
		page := scrape(c.h, c.auth)
		if !strings.Contains(page, "kashi_gpus{") {
			t.Errorf("scrape with %q has no kashi_gpus", c.auth)
		}
		for _, family := range []string{"kashi_month_bill_yuan", "kashi_month_card_seconds"} {
			if got := strings.Contains(page, family+"{"); got != c.wantMoney {
				t.Errorf("scrape with %q: %s shown %v, want %v", c.auth, family, got, c.wantMoney)
			}
		}
	}
}

// TestBuildInfo: kashi_build_info is 1 with the version and the Go version as labels.
func TestBuildInfo(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(BuildInfo("v1.2.3"))
	fams, err := reg.Gather()
	if err != nil || len(fams) != 1 || len(fams[0].GetMetric()) != 1 {
		t.Fatalf("Gather = %v, %v; want one kashi_build_info series", fams, err)
	}
	m := fams[0].GetMetric()[0]
	labels := map[string]string{}
	for _, l := range m.GetLabel() {
		labels[l.GetName()] = l.GetValue()
	}
	if fams[0].GetName() != "kashi_build_info" || m.GetGauge().GetValue() != 1 || labels["version"] != "v1.2.3" ||
		labels["goversion"] != runtime.Version() || !slices.Contains(slices.Collect(maps.Keys(labels)), "revision") {
		t.Errorf("build info = %s %v %v, want kashi_build_info 1 with version v1.2.3, goversion and revision", fams[0].GetName(), labels, m.GetGauge().GetValue())
	}
}
