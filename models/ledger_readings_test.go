package models_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

// TestLedgerReadingsStream: the rollups of the GPUs asked for, and only those, come GPU by
// GPU, each GPU once with its buckets in order, though the GPUs are read in parts at once;
// an error from each stops the reading and is returned.
func TestLedgerReadingsStream(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		var asked []int64
		for n := 0; n < 5; n++ {
			host := fmt.Sprintf("n%d", n)
			req := models.NodeRegistration{Hostname: host, Pool: "a100"}
			for i := 0; i < 8; i++ {
				req.GPUs = append(req.GPUs, models.GPUInfo{UUID: fmt.Sprintf("%s-g%d", host, i), Index: i, Name: "NVIDIA A100-SXM4-80GB", MemoryTotalMiB: 81920})
			}
			node, err := s.RegisterNode(ctx, req, "hash-"+host, billT0)
			if err != nil {
				t.Fatal(err)
			}
			var samples []models.Reading
			for _, g := range req.GPUs {
				for m := 0; m < 20; m++ {
					samples = append(samples, models.Reading{UUID: g.UUID, TS: billT0.Add(time.Duration(m) * time.Minute), UtilPct: 80,
						MemoryUsedMiB: 1000 + int64(m)})
				}
			}
			if _, err := s.IngestSamples(ctx, node.ID, samples, billT0.Add(20*time.Minute)); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.RollUp(ctx, billT0.Add(time.Hour), 24*time.Hour); err != nil {
			t.Fatal(err)
		}
		nodes, err := s.Nodes(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range nodes {
			for i, g := range n.GPUs {
				if i != 3 { // one GPU of each node is left out
					asked = append(asked, g.ID)
				}
			}
		}
		var (
			mu   sync.Mutex
			seen = map[int64]int{}
		)
		err = s.LedgerPeakReadings(ctx, asked, billT0, billT0.Add(time.Hour), func(gpu int64, rs []models.GPURollup) error {
			mu.Lock()
			defer mu.Unlock()
			seen[gpu]++
			if len(rs) != 4 || !slices.IsSortedFunc(rs, func(a, b models.GPURollup) int { return int(a.Bucket - b.Bucket) }) {
				t.Errorf("GPU %d: %d rollups %+v, want 4 by bucket", gpu, len(rs), rs)
			}
			for _, r := range rs {
				if r.GPUID != gpu || r.N != 5 || r.NActive != 5 || r.UtilMax != 80 || r.UtilSum != 400 || r.MemMax < 1004 {
					t.Errorf("GPU %d: rollup %+v, want its own, of 5 active readings at 80 %% and their peak memory", gpu, r)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(seen) != len(asked) {
			t.Errorf("%d GPUs given, want the %d asked for", len(seen), len(asked))
		}
		for _, g := range asked {
			if seen[g] != 1 {
				t.Errorf("GPU %d given %d times, want once", g, seen[g])
			}
		}
		stop := errors.New("stop")
		err = s.LedgerReadings(ctx, asked, billT0, billT0.Add(time.Hour), func(int64, []models.GPURollup) error { return stop })
		if !errors.Is(err, stop) {
			t.Errorf("LedgerReadings with each failing = %v, want its error", err)
		}
	})
}
