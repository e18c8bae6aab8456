// A large fleet written straight into a store, for the board's benchmark and browser test.

package webtest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"kashi/models"
)

// SeedFleet fills store, through its own methods, with nodes × 8 A100s in pools of 512 nodes
// ("a100", then "a100-01", "a100-02"…) and readings every 5 minutes of the hour before now, rolled up: of each node's eight cards,
// five are held by one task (of owners u0…u36) — two busy, one low, two idle — and three are
// free. It returns the node ids.
func SeedFleet(tb testing.TB, s *models.Store, nodes int, now time.Time) []int64 {
	tb.Helper()
	ctx := context.Background()
	if _, err := s.EnsureProject(ctx, "vision", now.Add(-24*time.Hour)); err != nil {
		tb.Fatal(err)
	}
	ids := make([]int64, 0, nodes)
	for n := range nodes {
		host := fmt.Sprintf("gpu-%03d", n)
		req := models.NodeRegistration{Hostname: host, Pool: seedPool(n)}
		for i := range 8 {
			req.GPUs = append(req.GPUs, models.GPUInfo{UUID: UUIDOf(host, i), Index: i, Name: A100Name, MemoryTotalMiB: A100MiB})
		}
		node, err := s.RegisterNode(ctx, req, "hash-"+host, now.Add(-2*time.Hour))
		if err != nil {
			tb.Fatal(err)
		}
		ids = append(ids, node.ID)
		var batch []models.Reading
		for step := 12; step >= 0; step-- {
			at := now.Add(-time.Duration(step)*5*time.Minute - 30*time.Second)
			for i := range 8 {
				util := []int{95, 80, 25, 0, 3, 0, 0, 0}[i]
				if step > 6 && i == 3 {
					util = 70 // busy in the first half hour, idle since
				}
				batch = append(batch, models.Reading{UUID: UUIDOf(host, i), TS: at, UtilPct: util, MemoryUsedMiB: int64(util) * 800,
					TempC: 35 + util/3, PowerW: 80 + 3*util})
			}
		}
		if _, err := s.IngestSamples(ctx, node.ID, batch, now); err != nil {
			tb.Fatal(err)
		}
	}
	gpus, err := s.BoardGPUs(ctx, models.BoardFilter{})
	if err != nil {
		tb.Fatal(err)
	}
	held := map[int64][]int64{}
	for _, g := range gpus {
		if g.Index < 5 {
			held[g.NodeID] = append(held[g.NodeID], g.ID)
		}
	}
	for n, id := range ids {
		tk, _, err := s.CreateTask(ctx, models.NewTask{Project: "vision", Name: fmt.Sprintf("train-%d", n), Owner: fmt.Sprintf("u%d", n%37),
			GPUs: 5, Queue: models.QueueLong, Priority: "normal", Command: []string{"train"}, DataReady: true},
			models.DefaultTaskLimits, now.Add(-2*time.Hour))
		if err != nil {
			tb.Fatal(err)
		}
		if err := s.PlaceTask(ctx, tk.ID, held[id], false, "seed", now.Add(-90*time.Minute)); err != nil {
			tb.Fatal(err)
		}
	}
	if err := s.RollUp(ctx, now, 7*24*time.Hour); err != nil {
		tb.Fatal(err)
	}
	return ids
}

// seedPool is the pool of SeedFleet's node n: 512 nodes a pool.
func seedPool(n int) string {
	if n < 512 {
		return "a100"
	}
	return fmt.Sprintf("a100-%02d", n/512)
}
