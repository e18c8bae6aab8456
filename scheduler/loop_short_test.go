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

// TestLoopShortLaneReserve: a pool that keeps one node for the short lane gets long tasks
// only on its other node; its highest-id node takes the short task.
func TestLoopShortLaneReserve(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
	s := modelstest.SQLite(t, models.Options{})
	cfg := models.PoolConfig{Provider: "static", Spec: "A100-80G", GPUsPerNode: 8, MaxNodes: 2, ShortLaneNodes: 1}
	if _, err := s.SavePoolConfig(ctx, "a100", cfg, "admin", "", t0); err != nil {
		t.Fatal(err)
	}
	var nodes []models.NodeGPUs
	for _, h := range []string{"n1", "n2"} {
		nodes = append(nodes, modelstest.Node(h).Pool("a100").Cards(modelstest.A100Name, modelstest.A100MiB, 8,
			func(i int) string { return fmt.Sprintf("%s-g%d", h, i) }).Register(t, s, t0))
	}
	long1 := modelstest.Task("vision", "long1").GPUs(8).Create(t, s, t0)
	long2 := modelstest.Task("vision", "long2").GPUs(8).Create(t, s, t0)
	shortB := modelstest.Task("vision", "short").GPUs(8).New()
	shortB.Queue = models.QueueShort
	short, _, err := s.CreateTask(ctx, shortB, models.DefaultTaskLimits, t0)
	if err != nil {
		t.Fatal(err)
	}
	loop := scheduler.NewLoop(s, scheduler.LoopConfig{Policy: scheduler.Policy{Location: time.UTC}, Now: func() time.Time { return t0 },
		NodeStaleAfter: 24 * time.Hour})
	if _, err := loop.RunOnce(ctx, t0); err != nil {
		t.Fatal(err)
	}
	allocs, _ := s.OpenAllocations(ctx)
	on := map[int64]int64{}
	for _, a := range allocs {
		on[a.TaskID] = a.NodeID
	}
	want := map[int64]int64{long1.ID: nodes[0].ID, short.ID: nodes[1].ID}
	for id, node := range want {
		if on[id] != node {
			t.Errorf("task %d on node %d, want %d", id, on[id], node)
		}
	}
	if _, ok := on[long2.ID]; ok {
		t.Errorf("second long task placed on node %d, want it waiting: the other node is the short lane's", on[long2.ID])
	}
}
