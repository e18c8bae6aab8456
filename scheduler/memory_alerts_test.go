package scheduler_test

import (
	"context"
	"testing"
	"time"

	"kashi/models"
	"kashi/scheduler"
)

func TestCheckGPUMemory(t *testing.T) {
	ctx := context.Background()
	s, loop, _, t0 := quotaFixture(t, models.Quota{Spec: "A100-80G", MaxGPUs: 8, BudgetCardHours: 1000,
		StartsAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), EndsAt: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)})
	task := submit(t, s, 1, t0)
	loop.RunOnce(ctx, t0)
	nodes, _ := s.Nodes(ctx)
	sample := func(at time.Time, mem int64) {
		if _, err := s.IngestSamples(ctx, nodes[0].ID, []models.Reading{{UUID: "g0", TS: at, MemoryUsedMiB: mem, UtilPct: 90}}, at); err != nil {
			t.Fatal(err)
		}
	}
	open := func() []models.Alert {
		as, _ := s.Alerts(ctx, models.AlertFilter{OpenOnly: true})
		return as
	}
	sample(t0.Add(time.Minute), 79000) // 96 %
	if err := scheduler.CheckGPUMemory(ctx, s, scheduler.DefaultMemoryAlertPct, t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if as := open(); len(as) != 1 || as[0].Kind != models.AlertGPUMemory {
		t.Fatalf("alerts at 96%% memory = %+v, want one gpu-memory alert for task %d", as, task.ID)
	}
	sample(t0.Add(2*time.Minute), 40000)
	scheduler.CheckGPUMemory(ctx, s, scheduler.DefaultMemoryAlertPct, t0.Add(2*time.Minute))
	if as := open(); len(as) != 0 {
		t.Errorf("alerts after memory fell = %+v, want none open", as)
	}
}
