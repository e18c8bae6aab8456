package billing

import (
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"kashi/models"
)

// The trace replay: testdata/traces/alibaba-openb-2wk.csv (see its SOURCE.md) as
// allocations. Each job is one task holding its GPUs from start_ts to end_ts, at
// traceEpoch + ts; its group (LS, BE, Burstable, Guaranteed) is its project.

var (
	traceEpoch  = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	traceGroups = []string{"LS", "BE", "Burstable", "Guaranteed"}
)

const (
	traceJobs        = 2491
	traceCardSeconds = 29_107_658 // 8,085.460556 card-hours
	traceMaxGPUs     = 39
)

type traceJob struct {
	id, group         string
	start, end, cards int64
	status            string
}

func readTrace(t testing.TB) []traceJob {
	t.Helper()
	f, err := os.Open("../testdata/traces/alibaba-openb-2wk.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var jobs []traceJob
	for _, r := range recs[1:] {
		n := func(s string) int64 {
			v, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				t.Fatalf("trace %s: %v", r[0], err)
			}
			return v
		}
		jobs = append(jobs, traceJob{id: r[0], group: r[1], start: n(r[3]), end: n(r[4]), cards: n(r[5]), status: r[6]})
	}
	return jobs
}

// traceRows turns the jobs into ledger rows, placing each job on the lowest free GPUs of a
// 40-GPU pool (a release before an acquisition at the same second). It returns the most
// GPUs in use at once.
func traceRows(t testing.TB, jobs []traceJob) (ledgerRows, int) {
	t.Helper()
	lr := ledgerRows{nodes: 5, spec: "GPU-trace", projects: traceGroups}
	project := map[string]int64{}
	for i, g := range traceGroups {
		project[g] = int64(i + 1)
	}
	state := map[string]string{"Succeeded": models.TaskSucceeded, "Failed": models.TaskFailed, "Running": models.TaskCancelled}
	type event struct {
		at    int64
		start bool
		job   int
	}
	var evs []event
	for i, j := range jobs {
		evs = append(evs, event{j.start, true, i}, event{j.end, false, i})
	}
	slices.SortStableFunc(evs, func(a, b event) int {
		if a.at != b.at {
			return int(a.at - b.at)
		}
		if a.start != b.start {
			if a.start {
				return 1 // releases first
			}
			return -1
		}
		return 0
	})
	free := make([]bool, 8*lr.nodes)
	for i := range free {
		free[i] = true
	}
	held := map[int][]int{}
	inUse, most := 0, 0
	for _, e := range evs {
		if !e.start {
			for _, g := range held[e.job] {
				free[g] = true
			}
			inUse -= len(held[e.job])
			continue
		}
		j := jobs[e.job]
		for g := 0; len(held[e.job]) < int(j.cards); g++ {
			if g == len(free) {
				t.Fatalf("job %s: pool of %d GPUs is full", j.id, len(free))
			}
			if free[g] {
				free[g] = false
				held[e.job] = append(held[e.job], g)
			}
		}
		inUse += int(j.cards)
		most = max(most, inUse)
	}
	for i, j := range jobs {
		start, end := traceEpoch.Add(time.Duration(j.start)*time.Second), traceEpoch.Add(time.Duration(j.end)*time.Second)
		task := models.LedgerTask{ID: int64(i + 1), ProjectID: project[j.group], Name: j.id, Owner: j.group, GPUs: int(j.cards),
			State: state[j.status], Ending: models.TaskEnding(state[j.status], ""), EndedAt: end.Unix()}
		lr.tasks = append(lr.tasks, task)
		lr.taskStart = append(lr.taskStart, start.Unix())
		for _, g := range held[i] {
			lr.allocations = append(lr.allocations, models.LedgerAllocation{ID: int64(len(lr.allocations) + 1), TaskID: task.ID,
				GPUID: int64(g + 1), NodeID: int64(g/8 + 1), ProjectID: task.ProjectID, Spec: lr.spec, Start: start.Unix(), End: end.Unix()})
		}
	}
	first, last := jobs[0].start, jobs[0].end
	for _, j := range jobs {
		first, last = min(first, j.start), max(last, j.end)
	}
	lr.provisioned = [2]time.Time{traceEpoch.Add(time.Duration(first) * time.Second), traceEpoch.Add(time.Duration(last) * time.Second)}
	return lr, most
}

// traceWant sums the trace directly: card-seconds per group and in all.
func traceWant(jobs []traceJob) (map[string]int64, int64) {
	per := map[string]int64{}
	var total int64
	for _, j := range jobs {
		per[j.group] += j.cards * (j.end - j.start)
		total += j.cards * (j.end - j.start)
	}
	return per, total
}

// checkTraceBills sums a series of monthly results and compares them with the trace.
func checkTraceBills(t *testing.T, name string, results []Result, jobs []traceJob) {
	t.Helper()
	wantPer, wantTotal := traceWant(jobs)
	if len(jobs) != traceJobs || wantTotal != traceCardSeconds {
		t.Fatalf("trace: %d jobs, %d card-seconds; want %d and %d", len(jobs), wantTotal, traceJobs, traceCardSeconds)
	}
	gotPer := map[string]int64{}
	tasks := map[int64]bool{}
	var total, wasted, poolHeld int64
	for _, res := range results {
		for _, b := range res.Bills {
			checkBill(t, name, b)
			gotPer[b.Project] += b.NominalS
			total += b.NominalS
			wasted += b.WastedS
			for _, l := range b.Lines {
				tasks[l.TaskID] = true
			}
		}
		for _, p := range res.PoolIdle {
			poolHeld += p.HeldS
		}
	}
	if len(tasks) != traceJobs {
		t.Errorf("%s: bills have lines for %d tasks, want %d", name, len(tasks), traceJobs)
	}
	if total != traceCardSeconds || FormatHours(total) != "8085.460556" {
		t.Errorf("%s: bills hold %d card-seconds (%s h), want %d (8085.460556 h)", name, total, FormatHours(total), traceCardSeconds)
	}
	for _, g := range traceGroups {
		if gotPer[g] != wantPer[g] {
			t.Errorf("%s: project %s holds %d card-seconds, trace %d", name, g, gotPer[g], wantPer[g])
		}
	}
	var wantWasted int64
	for _, j := range jobs {
		if j.status == "Failed" {
			wantWasted += j.cards * (j.end - j.start)
		}
	}
	if wasted != wantWasted {
		t.Errorf("%s: wasted %d card-seconds, want the failed jobs' %d (they report no checkpoints)", name, wasted, wantWasted)
	}
	if results[0].PoolIdle != nil && poolHeld != traceCardSeconds {
		t.Errorf("%s: pools held %d card-seconds, want %d", name, poolHeld, traceCardSeconds)
	}
}

// traceMonths is every month the trace touches in loc.
func traceMonths(lr ledgerRows, loc *time.Location) []Month {
	var ms []Month
	for m := MonthOf(lr.provisioned[0], loc); ; m = m.Next() {
		if from, _ := m.Bounds(loc); !from.Before(lr.provisioned[1]) {
			return ms
		}
		ms = append(ms, m)
	}
}

func TestTraceReplayLedger(t *testing.T) {
	jobs := readTrace(t)
	lr, most := traceRows(t, jobs)
	if most != traceMaxGPUs {
		t.Errorf("at most %d GPUs in use at once, want %d", most, traceMaxGPUs)
	}
	nodes := make([]models.LedgerNode, lr.nodes)
	for n := range nodes {
		nodes[n] = models.LedgerNode{ID: int64(n + 1), Pool: "pool", Spec: lr.spec, State: models.NodeReady,
			RegisteredAt: lr.provisioned[0], LastSeenAt: lr.provisioned[1]}
		for g := 1; g <= 8; g++ {
			nodes[n].GPUIDs = append(nodes[n].GPUIDs, int64(n*8+g))
		}
	}
	for _, zone := range []string{"Asia/Shanghai", "UTC", "America/New_York"} {
		loc := mustLoc(t, zone)
		var results []Result
		for _, m := range traceMonths(lr, loc) {
			in := Input{Month: m, Location: loc, AsOf: lr.provisioned[1], Tasks: tasksOf(lr.tasks), Ledger: ledgerOf(lr.allocations, nil), Nodes: nodes,
				Prices: []models.Price{{Spec: lr.spec, RateFen: 1000, OverflowRateFen: 1500}}}
			for i, g := range traceGroups {
				in.Projects = append(in.Projects, models.Project{ID: int64(i + 1), Name: g})
			}
			res, err := Compute(in)
			if err != nil {
				t.Fatal(err)
			}
			results = append(results, res)
		}
		if len(results) < 2 {
			t.Errorf("%s: the trace spans %d months, want it across a month boundary", zone, len(results))
		}
		checkTraceBills(t, zone, results, jobs)
	}
}

// TestTraceReplayStore runs the trace through the store on SQLite: rows in, bills out of
// MonthBills for each month.
func TestTraceReplayStore(t *testing.T) {
	if testing.Short() {
		t.Skip("store replay in -short")
	}
	jobs := readTrace(t)
	lr, _ := traceRows(t, jobs)
	st := openRawStore(t, t.TempDir())
	defer st.Close()
	st.load(t, lr)
	ctx := context.Background()
	if err := st.SetPrice(ctx, models.Price{Spec: lr.spec, FromMonth: "2026-01", RateFen: 1000, OverflowRateFen: 1500}, lr.provisioned[1]); err != nil {
		t.Fatal(err)
	}
	loc := mustLoc(t, models.DefaultBillingTimeZone)
	var results []Result
	now := lr.provisioned[1].Add(40 * 24 * time.Hour)
	for _, m := range traceMonths(lr, loc) {
		res, err := MonthBills(ctx, st, m.String(), now)
		if err != nil {
			t.Fatalf("MonthBills(%s) = %v", m, err)
		}
		results = append(results, res)
	}
	checkTraceBills(t, fmt.Sprintf("store %d months", len(results)), results, jobs)
}
