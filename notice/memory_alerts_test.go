package notice_test

import (
	"context"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
	"kashi/notice"
)

func TestCheckGPUMemory(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
	s := modelstest.SQLite(t, models.Options{})
	node := modelstest.Node("n1").Pool("a100").A100s(8).Register(t, s, t0)
	task := modelstest.Task("vision", "train").Create(t, s, t0)
	modelstest.Run(t, s, task, node, t0)
	sample := func(at time.Time, mem int64) {
		if _, err := s.IngestSamples(ctx, node.ID, []models.Reading{{UUID: "n1-g0", TS: at, MemoryUsedMiB: mem, UtilPct: 90}}, at); err != nil {
			t.Fatal(err)
		}
	}
	open := func() []models.Alert {
		as, _ := s.Alerts(ctx, models.AlertFilter{OpenOnly: true})
		return as
	}
	sample(t0.Add(time.Minute), 79000) // 96 %
	if err := notice.CheckGPUMemory(ctx, s, notice.DefaultMemoryAlertPct, t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if as := open(); len(as) != 1 || as[0].Kind != models.AlertGPUMemory {
		t.Fatalf("alerts at 96%% memory = %+v, want one gpu-memory alert for task %d", as, task.ID)
	}
	sample(t0.Add(2*time.Minute), 40000)
	notice.CheckGPUMemory(ctx, s, notice.DefaultMemoryAlertPct, t0.Add(2*time.Minute))
	if as := open(); len(as) != 0 {
		t.Errorf("alerts after memory fell = %+v, want none open", as)
	}
}
