package scheduler_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
	"kashi/scheduler"
)

// BenchmarkLoopPass is one pass of the scheduler's loop through the store: 512 nodes × 8
// cards, 1,000 tasks of 2 cards and 262 of 8 running on all of them, and 738 of 8 waiting.
// It is what the pass reads and builds each time (the snapshot, the quota use and free
// capacity, the queue's view), not Decide alone (BenchmarkDecide10k); its B/op is what the
// server's heap pays per pass under load (#37: 100 MB a pass at 4,096 agents).
func BenchmarkLoopPass(b *testing.B) {
	ctx := context.Background()
	t0 := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
	s := modelstest.SQLite(b, models.Options{})
	for n := range 512 {
		req := models.NodeRegistration{Hostname: fmt.Sprintf("n%03d", n), Pool: "a100"}
		for i := range 8 {
			req.GPUs = append(req.GPUs, models.GPUInfo{UUID: fmt.Sprintf("g%d-%d", n, i), Index: i,
				Name: "NVIDIA A100-SXM4-80GB", MemoryTotalMiB: 81920})
		}
		if _, err := s.RegisterNode(ctx, req, fmt.Sprintf("h%d", n), t0); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := s.EnsureProject(ctx, "vision", t0); err != nil {
		b.Fatal(err)
	}
	loop := scheduler.NewLoop(s, scheduler.LoopConfig{Policy: scheduler.Policy{Location: time.UTC},
		Now: func() time.Time { return t0 }, NodeStaleAfter: 24 * time.Hour})
	task := func(gpus int, spec string) {
		_, _, err := s.CreateTask(ctx, models.NewTask{Project: "vision", Name: "t", Owner: "alice", GPUs: gpus,
			Spec: spec, Queue: models.QueueLong, Priority: "normal", Command: []string{"train", "--epochs", "3"},
			DataReady: true, EstGPUHours: float64(gpus)}, models.DefaultTaskLimits, t0)
		if err != nil {
			b.Fatal(err)
		}
	}
	for range 1000 {
		task(2, "A100-80G")
	}
	if plan, err := loop.RunOnce(ctx, t0); err != nil || len(plan.Placements) != 1000 {
		b.Fatalf("placed %d of 1,000 (%v)", len(plan.Placements), err)
	}
	for range 1000 {
		task(8, "A100-80G")
	}
	if _, err := loop.RunOnce(ctx, t0); err != nil { // fills the free nodes; the rest wait
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := loop.RunOnce(ctx, t0); err != nil {
			b.Fatal(err)
		}
	}
}
