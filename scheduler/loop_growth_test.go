package scheduler_test

import (
	"context"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
	"kashi/scheduler"
)

// TestGrowthCountsThePoolAsTheScalerDoes: a pool at its largest size whose one node was lost
// gets no new machine from the scaling loop (it counts the lost node's machine until the
// node is removed), so a task waiting for its cards is estimated at the running task's end,
// not at a machine the loop will not add. The demo's reading estimated such waits 3 minutes
// for 20.
func TestGrowthCountsThePoolAsTheScalerDoes(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
	s := modelstest.SQLite(t, models.Options{})
	cfg := models.PoolConfig{Provider: "sim", Spec: "A100-80G", GPUsPerNode: 8, MinNodes: 1, MaxNodes: 2, Enabled: true}
	if _, err := s.SavePoolConfig(ctx, "a100", cfg, "admin", "", t0); err != nil {
		t.Fatal(err)
	}
	n1 := modelstest.Node("n1").Pool("a100").A100s(8).Register(t, s, t0)
	n2 := modelstest.Node("n2").Pool("a100").A100s(8).Register(t, s, t0)
	running := modelstest.Task("vision", "running").GPUs(8).Estimate(8*5, 10*time.Hour).Create(t, s, t0)
	modelstest.Run(t, s, running, n1, t0)
	if _, err := s.MarkLostNodes(ctx, []int64{n2.ID}, t0.Add(time.Minute), t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	pools, err := s.ConfiguredPools(ctx)
	if err != nil || len(pools) != 1 {
		t.Fatalf("pools %v, %v", pools, err)
	}
	waiting := modelstest.Task("nlp", "waiting").GPUs(8).Spec("A100-80G").Estimate(8, 2*time.Hour).Create(t, s, t0)
	now := t0.Add(time.Hour)
	loop := scheduler.NewLoop(s, scheduler.LoopConfig{Policy: scheduler.Policy{Location: time.UTC}, Now: func() time.Time { return now },
		NodeStaleAfter: 24 * time.Hour, ScalePeriod: 30 * time.Second})
	for _, c := range []struct {
		desired int
		want    time.Duration // the least p50 wait
	}{
		{desired: 0, want: 0},             // the loop has not counted the pool: one node's room
		{desired: 2, want: 3 * time.Hour}, // it counts the lost node: no room; the running task ends in 4 h
	} {
		if c.desired > 0 {
			if err := s.SetPoolScaleStatus(ctx, pools[0].ID, c.desired, c.desired, nil, now); err != nil {
				t.Fatal(err)
			}
		}
		plan, err := loop.RunOnce(ctx, now)
		if err != nil {
			t.Fatal(err)
		}
		var eta time.Time
		for _, w := range plan.Waiting {
			if w.TaskID == waiting.ID {
				eta = w.ETAP50
			}
		}
		if eta.IsZero() {
			t.Fatalf("desired %d: task %d has no estimate: %+v", c.desired, waiting.ID, plan.Waiting)
		}
		wait := eta.Sub(now)
		if c.want == 0 && wait > 30*time.Minute || c.want > 0 && wait < c.want {
			t.Errorf("scaler's count %d: p50 wait %v, want %s", c.desired, wait, map[bool]string{true: "a new machine's boot", false: "the running task's end (≥ 3 h)"}[c.want == 0])
		}
	}
}
