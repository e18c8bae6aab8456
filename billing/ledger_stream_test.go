package billing

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/models"
	"kashi/models/modelstest"
)

// TestStreamedBillsEqualReference: on random ledgers stored in the database — tasks on two
// specs and two pools crossing both ends of March (Asia/Shanghai), nodes that come and go,
// and rollups with buckets missing, empty, all idle, all active or mixed — the month's bills
// as the store streams them GPU by GPU (MonthBills; ProjectBill for one project) equal the
// bills computed from the allocations read whole by id with every rollup held — with pool
// idle, regions, unmanaged use and bookings too, over nodes made up from the allocations —
// and every line's classes equal those of its allocations classified one by one.
func TestStreamedBillsEqualReference(t *testing.T) {
	seeds := 3
	if testing.Short() {
		seeds = 1
	}
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		for seed := range seeds {
			checkStreamed(t, ctx, s, seed)
		}
	})
}

// streamT0 is a moment before March 2026 of the random ledgers.
var streamT0 = time.Date(2026, 2, 26, 0, 0, 0, 0, time.UTC)

func checkStreamed(t *testing.T, ctx context.Context, s *models.Store, seed int) {
	t.Helper()
	r := rand.New(rand.NewPCG(uint64(seed), 19))
	// Each seed adds its own pools, projects and past to the store: the month holds them all.
	for i, spec := range []string{"A100-80G", "H800-80G"} {
		pool := fmt.Sprintf("p%d-%d", seed, i)
		if _, err := s.SavePoolConfig(ctx, pool, models.PoolConfig{Provider: "sim", Spec: spec, GPUsPerNode: 2, MaxNodes: 4}, "admin", "", streamT0); err != nil {
			t.Fatal(err)
		}
		if err := s.SetPrice(ctx, models.Price{Spec: spec, FromMonth: "2026-01", RateFen: 1500 + int64(i), OverflowRateFen: 2500}, streamT0); err != nil {
			t.Fatal(err)
		}
	}
	projects := []string{fmt.Sprintf("a%d", seed), fmt.Sprintf("b%d", seed), fmt.Sprintf("c%d", seed)}
	for _, p := range projects {
		if _, err := s.EnsureProject(ctx, p, streamT0); err != nil {
			t.Fatal(err)
		}
	}
	// Times are minutes from streamT0; March begins at 2026-02-28T16:00Z, 3,840 minutes on,
	// and ends 44,640 minutes later.
	at := func(min int64) time.Time { return streamT0.Add(time.Duration(min) * time.Minute) }
	edges := []int64{3840, 3840 + 44640}
	var h models.History
	for n := range 4 {
		h.Nodes = append(h.Nodes, models.HistoryNode{Pool: fmt.Sprintf("p%d-%d", seed, n%2), Hostname: fmt.Sprintf("n%d-%d", seed, n),
			GPUs: []models.GPUInfo{{UUID: fmt.Sprintf("G%d-%d-0", seed, n), Index: 0, MemoryTotalMiB: 81920},
				{UUID: fmt.Sprintf("G%d-%d-1", seed, n), Index: 1, MemoryTotalMiB: 81920}},
			From: at(r.Int64N(3000)), To: at(edges[1] + 1000 - r.Int64N(3000))})
	}
	states := []string{models.TaskSucceeded, models.TaskFailed, models.TaskReclaimed}
	for i := range 40 {
		// Most tasks start within half a day of either end of the month; a few run for weeks.
		start := edges[r.IntN(2)] - 720 + r.Int64N(1440)
		dur := 1 + r.Int64N(600)
		if r.IntN(8) == 0 {
			dur = r.Int64N(30 * 1440)
		}
		node := r.IntN(4)
		cards := []models.HistoryCard{{Node: node, GPU: r.IntN(2)}}
		switch r.IntN(6) {
		case 0, 1:
			cards = []models.HistoryCard{{Node: node, GPU: 0}, {Node: node, GPU: 1}}
		case 2: // on two nodes, of the same spec or not
			cards = append(cards, models.HistoryCard{Node: (node + 1 + r.IntN(3)) % 4, GPU: r.IntN(2)})
		}
		h.Tasks = append(h.Tasks, models.HistoryTask{NewTask: models.NewTask{Project: projects[r.IntN(3)], Name: fmt.Sprintf("t%d", i),
			Owner: "ana", GPUs: len(cards), Queue: models.QueueLong, Priority: models.PriorityNormal, Command: []string{"run"}},
			State: states[r.IntN(3)], Reason: "ended", SubmittedAt: at(start), StartedAt: at(start), EndedAt: at(start + dur), Cards: cards})
	}
	for n := range 4 {
		for g := range 2 {
			for _, edge := range edges {
				for b := at(edge - 3000).Unix(); b < at(edge+3000).Unix(); b += models.Rollup5m {
					if r.IntN(4) == 0 {
						continue // no bucket
					}
					ro := models.GPURollup{Bucket: b - b%models.Rollup5m, N: r.Int64N(4)}
					switch r.IntN(4) {
					case 0:
						ro.NActive = ro.N
					case 1:
						ro.NIdle = ro.N
					default:
						ro.NActive = r.Int64N(ro.N + 1)
						ro.NIdle = r.Int64N(ro.N - ro.NActive + 1)
					}
					h.Rollups = append(h.Rollups, models.HistoryRollup{Node: n, GPU: g, GPURollup: ro})
				}
			}
		}
	}
	if err := s.ImportHistory(ctx, h); err != nil {
		t.Fatal(err)
	}

	now := at(edges[1] + 7*1440)
	got, err := MonthBills(ctx, s, "2026-03", now)
	if err != nil {
		t.Fatalf("MonthBills = %v", err)
	}
	// The reference: the allocations read whole, by id, and every rollup held.
	in, err := Load(ctx, s, Request{Month: Month{2026, time.March}, AsOf: now})
	if err != nil {
		t.Fatal(err)
	}
	from, to := in.Month.Bounds(in.Location)
	allocs, err := s.LedgerAllocations(ctx, models.LedgerQuery{From: from, To: to})
	if err != nil {
		t.Fatal(err)
	}
	var gpus []int64
	since := from.Unix()
	for _, a := range allocs {
		gpus = append(gpus, a.GPUID)
		since = min(since, a.Start)
	}
	var rollups rollupList
	var mu sync.Mutex
	err = s.LedgerReadings(ctx, slices.Compact(slices.Sorted(slices.Values(gpus))), time.Unix(since, 0), to, func(_ int64, rs []models.GPURollup) error {
		mu.Lock()
		defer mu.Unlock()
		rollups = append(rollups, rs...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	streamed := in.Ledger
	in.Ledger = ledgerOf(allocs, rollups)
	want, err := Compute(in)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("seed %d: MonthBills (-reference +streamed):\n%s", seed, diff)
	}
	for _, b := range want.Bills {
		one, err := ProjectBill(ctx, s, b.ProjectID, "2026-03", now)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(b, one); diff != "" {
			t.Errorf("seed %d: ProjectBill(%s) (-reference +streamed):\n%s", seed, b.Project, diff)
		}
	}

	// Nodes (the stored ones are removed, so pool idle is empty above), regions, unmanaged
	// use and bookings, the same for both.
	in.Nodes, in.Regions, in.UnusedBookingPct = nil, map[int64]string{}, map[string]int{"A100-80G": 50}
	nodeOf := map[int64]*models.LedgerNode{}
	for _, a := range allocs {
		n := nodeOf[a.NodeID]
		if n == nil {
			n = &models.LedgerNode{ID: a.NodeID, Pool: a.Spec, Spec: a.Spec, State: models.NodeReady,
				RegisteredAt: at(r.Int64N(6000)), LastSeenAt: at(edges[1] - 1000 + r.Int64N(2000))}
			if r.IntN(3) == 0 {
				n.State = models.NodeLost
			}
			nodeOf[a.NodeID] = n
			if r.IntN(2) == 0 {
				in.Regions[a.NodeID] = fmt.Sprintf("r%d", r.IntN(2))
			}
		}
		if !slices.Contains(n.GPUIDs, a.GPUID) {
			n.GPUIDs = append(n.GPUIDs, a.GPUID)
			in.Unmanaged = append(in.Unmanaged, models.UnmanagedSpan{GPUID: a.GPUID, Start: at(edges[0] + r.Int64N(3000)).Unix(),
				End: at(edges[0] + 3000 + r.Int64N(3000)).Unix()})
		}
	}
	for _, id := range slices.Sorted(maps.Keys(nodeOf)) {
		in.Nodes = append(in.Nodes, *nodeOf[id])
	}
	for i, b := range want.Bills {
		in.Reservations = append(in.Reservations, models.Reservation{ID: int64(i + 1), ProjectID: b.ProjectID, Spec: "A100-80G",
			GPUs: 1 + r.IntN(2), StartsAt: at(edges[0] - 600 + r.Int64N(3000)), EndsAt: at(edges[0] + 3000 + r.Int64N(3000))})
	}
	wantAll, err := Compute(in)
	if err != nil {
		t.Fatal(err)
	}
	in.Ledger = streamed
	gotAll, err := Compute(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(gotAll.PoolIdle) == 0 {
		t.Errorf("seed %d: no pool idle", seed)
	}
	if diff := cmp.Diff(wantAll, gotAll); diff != "" {
		t.Errorf("seed %d: bills with nodes and bookings (-reference +streamed):\n%s", seed, diff)
	}

	// Each line's classes are those of its allocations classified one by one.
	win := Span{from.Unix(), to.Unix()}
	byGPU := rollups.byGPU()
	type key struct {
		task int64
		spec string
	}
	lines := map[key]Breakdown{}
	for _, a := range allocs {
		b := lines[key{a.TaskID, a.Spec}]
		b.Add(Classify(Span{a.Start, a.End}, win, byGPU[a.GPUID]))
		lines[key{a.TaskID, a.Spec}] = b
	}
	n := 0
	for _, b := range lines {
		if b.Nominal() > 0 {
			n--
		}
	}
	for _, b := range got.Bills {
		for _, l := range b.Lines {
			n++
			if w := lines[key{l.TaskID, l.Spec}]; w != l.Breakdown {
				t.Errorf("seed %d: line of task %d %s = %+v, want %+v", seed, l.TaskID, l.Spec, l.Breakdown, w)
			}
		}
	}
	if n != 0 || len(lines) == 0 {
		t.Errorf("seed %d: %d lines more than allocations with seconds in the month, of %d", seed, n, len(lines))
	}
}
