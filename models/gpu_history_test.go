package models_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/models"
	"kashi/models/modelstest"
)

// TestHistoryAndStrips: rollups record temperature and power; the board's strips classify
// the last hour's buckets and are read again after a rollup run; a GPU's holds in a range.
func TestHistoryAndStrips(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		n := registerNode(t, s, "n1", "a100", 2)
		// One hour of readings every minute on gpu0: util 0, then 25, then 90 by 20 minutes.
		var batch []models.Reading
		for i := range 60 {
			r := sample("n1-gpu0", t0.Add(time.Duration(i)*time.Minute), []int{0, 25, 90}[i/20], 1000)
			r.TempC, r.PowerW = 40+i%2, 100+i
			batch = append(batch, r)
		}
		now := t0.Add(time.Hour)
		if _, err := s.IngestSamples(ctx, n.ID, batch[:30], now); err != nil {
			t.Fatal(err)
		}
		if err := s.RollUp(ctx, t0.Add(30*time.Minute), 24*time.Hour); err != nil {
			t.Fatal(err)
		}
		gpus, _ := s.BoardGPUs(ctx, models.BoardFilter{})
		g0 := gpus[0].ID
		strips, err := s.UtilStrips(ctx, now)
		if err != nil {
			t.Fatal(err)
		}
		I, L, A, N := models.StripIdle, models.StripLow, models.StripActive, models.StripNone
		if diff := cmp.Diff(models.UtilStrip{I, I, I, I, L, L, N, N, N, N, N, N}, strips[g0]); diff != "" {
			t.Errorf("strip after 30 minutes (-want +got):\n%s", diff)
		}
		if _, ok := strips[gpus[1].ID]; ok {
			t.Errorf("gpu1 has a strip without rollups")
		}
		// The second half and a new run: the cached strips are read again.
		if _, err := s.IngestSamples(ctx, n.ID, batch[30:], now); err != nil {
			t.Fatal(err)
		}
		if err := s.RollUp(ctx, now, 24*time.Hour); err != nil {
			t.Fatal(err)
		}
		strips, _ = s.UtilStrips(ctx, now)
		if diff := cmp.Diff(models.UtilStrip{I, I, I, I, L, L, L, L, A, A, A, A}, strips[g0]); diff != "" {
			t.Errorf("strip after the hour (-want +got):\n%s", diff)
		}
		rows, err := s.GPUHistory(ctx, []int64{g0}, models.Rollup5m, t0, now)
		if err != nil || len(rows) != 12 {
			t.Fatalf("GPUHistory = %d rows, %v", len(rows), err)
		}
		if r := rows[0]; r.TempSum != 202 || r.TempMax != 41 || r.PowerSum != 510 || r.PowerMax != 104 {
			t.Errorf("first bucket temperature and power = %d %d %d %d, want 202 41 510 104", r.TempSum, r.TempMax, r.PowerSum, r.PowerMax)
		}
		hour, _ := s.GPUHistory(ctx, []int64{g0}, models.RollupHour, t0, now)
		if len(hour) != 1 || hour[0].TempMax != 41 || hour[0].PowerMax != 159 || hour[0].PowerSum != 60*100+59*60/2 {
			t.Errorf("hourly = %+v", hour)
		}

		// Holds: a task on gpu1 from 10 to 40 minutes; another still on gpu0 since 50.
		s.EnsureProject(ctx, "vision", t0)
		place := func(name string, gpu int64, from time.Time) models.Task {
			tk, _, err := s.CreateTask(ctx, models.NewTask{Project: "vision", Name: name, Owner: "ann", GPUs: 1, Queue: models.QueueLong,
				Priority: "normal", Command: []string{"x"}, DataReady: true}, models.DefaultTaskLimits, from)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.PlaceTask(ctx, tk.ID, []int64{gpu}, false, "test", from); err != nil {
				t.Fatal(err)
			}
			return tk
		}
		a := place("a", gpus[1].ID, t0.Add(10*time.Minute))
		s.ReportTaskStatus(ctx, n.ID, a.ID, models.TaskReport{State: models.ReportExited, TS: t0.Add(40 * time.Minute)}, t0.Add(40*time.Minute))
		place("b", g0, t0.Add(50*time.Minute))
		holds, err := s.HeldBy(ctx, []int64{g0, gpus[1].ID}, t0.Add(45*time.Minute), now)
		if err != nil || len(holds) != 1 || holds[0].Task != "b" || holds[0].EndedAt != nil || holds[0].Owner != "ann" {
			t.Errorf("holds after 45 minutes = %+v, %v; want b, still held", holds, err)
		}
		if holds, _ := s.HeldBy(ctx, []int64{g0, gpus[1].ID}, t0, now); len(holds) != 2 || holds[1].Task != "a" || holds[1].EndedAt == nil {
			t.Errorf("holds in the hour = %+v, want b then a (ended)", holds)
		}
	})
}
