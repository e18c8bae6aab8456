package models_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
	"kashi/serving"
)

// TestRollUpPrunesServiceRollups: a service's rollups older than ServiceRollupKeep go with
// the roll-up pass, the one inside it stays; and the buckets in which the service served
// are still there for bills (ServedBuckets), the old one among them, but not the old one in
// which it served nothing.
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
		for i, at := range []time.Time{t0.Add(time.Minute), t0.Add(10 * time.Minute), now.Add(-time.Hour)} {
			r := models.ServiceReport{TaskID: svc.ID, TS: at, Served: serving.Snapshot{Server: serving.VLLM, Model: "qwen2.5-7b", Requests: float64(1 - i%2)}}
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
		served, err := s.ServedBuckets(ctx, []int64{*svc.ServiceID}, t0.Add(-time.Hour), now)
		want := []int64{t0.Truncate(5 * time.Minute).Unix(), now.Add(-time.Hour).Truncate(5 * time.Minute).Unix()}
		if err != nil || !slices.Equal(served[*svc.ServiceID], want) {
			t.Errorf("ServedBuckets after the pass = %v, %v; want %v, the old bucket kept", served, err, want)
		}
		// A second pass keeps what the first kept.
		if err := s.RollUp(ctx, now.Add(time.Hour), 24*time.Hour); err != nil {
			t.Fatal(err)
		}
		if again, err := s.ServedBuckets(ctx, []int64{*svc.ServiceID}, t0.Add(-time.Hour), now); err != nil || !slices.Equal(again[*svc.ServiceID], want) {
			t.Errorf("ServedBuckets after a second pass = %v, %v; want %v", again, err, want)
		}
	})
}
