package scheduler_test

import (
	"context"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
	"kashi/scheduler"
)

// TestLoopETACountsTheReclaimForecast: a task waiting on its project's limit behind the
// project's idle task is estimated at the time idle reclaim stops that task (the scaling
// loop's forecast), not at the end of its estimate.
func TestLoopETACountsTheReclaimForecast(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
	s := modelstest.SQLite(t, models.Options{})
	n := modelstest.Node("n1").Pool("a100").A100s(8).Register(t, s, t0)
	idle := modelstest.Task("vision", "idle").GPUs(4).Spec("A100-80G").Estimate(4*5, 10*time.Hour).Create(t, s, t0)
	modelstest.Run(t, s, idle, n, t0)
	if _, err := s.SetQuota(ctx, "admin", models.Quota{ProjectID: idle.ProjectID, Spec: "A100-80G", MaxGPUs: 4, BudgetCardHours: 1000,
		StartsAt: t0.AddDate(0, -1, 0), EndsAt: t0.AddDate(1, 0, 0)}, t0); err != nil {
		t.Fatal(err)
	}
	waiting := modelstest.Task("vision", "waiting").GPUs(2).Spec("A100-80G").Estimate(2, 2*time.Hour).Create(t, s, t0)
	now := t0.Add(time.Hour)
	for _, c := range []struct {
		name     string
		forecast map[int64]time.Time
		want     time.Time
	}{
		{"no forecast: the idle task's estimate", nil, t0.Add(5 * time.Hour)},
		{"reclaim stops it in 30 minutes", map[int64]time.Time{idle.ID: now.Add(30 * time.Minute)}, now.Add(30 * time.Minute)},
	} {
		loop := scheduler.NewLoop(s, scheduler.LoopConfig{Policy: scheduler.Policy{Location: time.UTC}, Now: func() time.Time { return now },
			NodeStaleAfter: 24 * time.Hour, ReclaimForecast: func(context.Context, time.Time, []models.ConfiguredPool, []models.NodeGPUs, []models.TaskRow, []models.Allocation) (map[int64]time.Time, error) {
				return c.forecast, nil
			}})
		plan, err := loop.RunOnce(ctx, now)
		if err != nil {
			t.Fatal(err)
		}
		var got time.Time
		for _, w := range plan.Waiting {
			if w.TaskID == waiting.ID {
				got = w.ETAP50
			}
		}
		if !got.Equal(c.want) {
			t.Errorf("%s: p50 %v, want %v (waiting: %+v)", c.name, got, c.want, plan.Waiting)
		}
	}
}
