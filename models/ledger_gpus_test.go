package models_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"

	"kashi/models"
	"kashi/models/modelstest"
)

// TestLedgerGPUs: the allocations of the period come GPU by GPU, each GPU once with its
// allocations by start and its rollups by bucket reaching back at least to the earliest of
// those starts, though the GPUs are read in pages and parts at once: together exactly the
// allocations LedgerAllocations reads (of all projects or of one), a GPU held without
// rollups given with none. An error from each stops the reading and is returned.
func TestLedgerGPUs(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
		period := models.LedgerQuery{From: t0, To: t0.Add(48 * time.Hour)}
		if _, err := s.SavePoolConfig(ctx, "a100", models.PoolConfig{Provider: "sim", Spec: "A100-80G", GPUsPerNode: 8, MaxNodes: 4},
			"admin", "", t0); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{"vision", "nlp"} {
			if _, err := s.EnsureProject(ctx, p, t0); err != nil {
				t.Fatal(err)
			}
		}
		r := rand.New(rand.NewPCG(1, 2))
		var h models.History
		for n := range 3 {
			hn := models.HistoryNode{Pool: "a100", Hostname: fmt.Sprintf("n%d", n), From: t0.Add(-72 * time.Hour), To: t0.Add(72 * time.Hour)}
			for g := range 8 {
				hn.GPUs = append(hn.GPUs, models.GPUInfo{UUID: fmt.Sprintf("n%d-g%d", n, g), Index: g, MemoryTotalMiB: 81920})
			}
			h.Nodes = append(h.Nodes, hn)
		}
		// Tasks in no order of start: some before the period, one reaching into it from the
		// day before; GPU 7 of node 0 never held, GPU 6 of node 0 held without rollups.
		for i := range 120 {
			start := t0.Add(time.Duration(r.IntN(3*24*60)-24*60) * time.Minute)
			card := models.HistoryCard{Node: r.IntN(3), GPU: r.IntN(7)}
			h.Tasks = append(h.Tasks, models.HistoryTask{NewTask: models.NewTask{Project: []string{"vision", "nlp"}[i%2],
				Name: fmt.Sprintf("t%d", i), Owner: "ana", GPUs: 1, Queue: models.QueueLong, Priority: models.PriorityNormal,
				Command: []string{"run"}}, State: models.TaskSucceeded, Reason: "exited 0", SubmittedAt: start, StartedAt: start,
				EndedAt: start.Add(time.Duration(1+r.IntN(600)) * time.Minute), Cards: []models.HistoryCard{card}})
		}
		for n := range 3 {
			for g := range 8 {
				if n == 0 && g == 6 {
					continue
				}
				for b := t0.Add(-48 * time.Hour).Unix(); b < t0.Add(72*time.Hour).Unix(); b += 3 * models.Rollup5m {
					h.Rollups = append(h.Rollups, models.HistoryRollup{Node: n, GPU: g, GPURollup: models.GPURollup{Bucket: b, N: 3, NActive: 1, NIdle: 1}})
				}
			}
		}
		if err := s.ImportHistory(ctx, h); err != nil {
			t.Fatal(err)
		}
		projects, err := s.Projects(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []models.LedgerQuery{period, {From: period.From, To: period.To, ProjectID: projects[0].ID}} {
			want, err := s.LedgerAllocations(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			var (
				mu     sync.Mutex
				got    []models.LedgerAllocation
				n      = map[int64]int{}
				noData int
			)
			err = s.LedgerGPUs(ctx, q, func(gpu int64, as []models.LedgerAllocation, rs []models.GPURollup) error {
				if len(as) == 0 {
					return fmt.Errorf("GPU %d given without allocations", gpu)
				}
				since := as[0].Start
				for _, a := range as {
					since = min(since, a.Start)
				}
				var wantRs []models.GPURollup
				if err := s.LedgerReadings(ctx, []int64{gpu}, time.Unix(since, 0), q.To, func(_ int64, rs []models.GPURollup) error {
					wantRs = slices.Clone(rs)
					return nil
				}); err != nil {
					return err
				}
				mu.Lock()
				defer mu.Unlock()
				n[gpu]++
				if !slices.IsSortedFunc(as, func(a, b models.LedgerAllocation) int { return cmp.Compare(a.Start, b.Start) }) {
					t.Errorf("GPU %d: allocations not by start", gpu)
				}
				for _, a := range as {
					if a.GPUID != gpu {
						t.Errorf("GPU %d given allocation %+v", gpu, a)
					}
				}
				// Those before since (read for the GPU's page) are harmless.
				early := slices.IndexFunc(rs, func(r models.GPURollup) bool { return r.Bucket+models.Rollup5m > since })
				if early < 0 {
					early = len(rs)
				}
				if diff := gocmp.Diff(wantRs, slices.Clone(rs[early:])); diff != "" {
					t.Errorf("GPU %d: rollups (-want +got):\n%s", gpu, diff)
				}
				if rs == nil {
					noData++
				}
				got = append(got, as...)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			slices.SortFunc(got, func(a, b models.LedgerAllocation) int { return cmp.Compare(a.ID, b.ID) })
			if diff := gocmp.Diff(want, got); diff != "" || len(want) < 10 {
				t.Errorf("project %d: LedgerGPUs gave (-LedgerAllocations +got), of %d:\n%s", q.ProjectID, len(want), diff)
			}
			if q.ProjectID == 0 && noData != 1 {
				t.Errorf("%d GPUs given without rollups, want 1", noData)
			}
			for g, k := range n {
				if k != 1 {
					t.Errorf("GPU %d given %d times, want once", g, k)
				}
			}
		}
		stop := errors.New("stop")
		err = s.LedgerGPUs(ctx, period, func(int64, []models.LedgerAllocation, []models.GPURollup) error { return stop })
		if !errors.Is(err, stop) {
			t.Errorf("LedgerGPUs with each failing = %v, want its error", err)
		}
	})
}
