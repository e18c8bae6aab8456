package models_test

import (
	"context"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
	"kashi/serving"
)

// TestRollUpPrunesServiceRollups: a service's rollup older than ServiceRollupKeep goes with
// the roll-up pass; the one inside it stays.
func TestRollUpPrunesServiceRollups(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		n1 := registerNode(t, s, "n1", "a100", 1)
		if _, err := s.EnsureProject(ctx, "vision", t0); err != nil {
			t.Fatal(err)
		}
		svc, _, err := s.CreateTask(ctx, newService(1), models.DefaultTaskLimits, t0)
		if err != nil {
			t.Fatal(err)
		}
		nodes, _ := s.Nodes(ctx)
		if err := s.PlaceTask(ctx, svc.ID, []int64{nodes[0].GPUs[0].ID}, false, "placed", t0); err != nil {
			t.Fatal(err)
		}
		now := t0.Add(models.ServiceRollupKeep + time.Hour)
		for _, at := range []time.Time{t0.Add(time.Minute), now.Add(-time.Hour)} {
			r := models.ServiceReport{TaskID: svc.ID, TS: at, Served: serving.Snapshot{Server: serving.VLLM, Model: "qwen2.5-7b", Requests: 1}}
			if err := s.AddServiceReports(ctx, n1.ID, []models.ServiceReport{r}, at); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.RollUp(ctx, now, 24*time.Hour); err != nil {
			t.Fatal(err)
		}
		rows, err := s.ServiceRollups(ctx, nil, t0.Add(-time.Hour), now)
		if err != nil || len(rows) != 1 || rows[0].Bucket != now.Add(-time.Hour).Truncate(5*time.Minute).Unix() {
			t.Errorf("ServiceRollups after the pass = %+v, %v; want only the recent bucket", rows, err)
		}
	})
}
