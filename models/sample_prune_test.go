package models_test

import (
	"context"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

// TestPruneSparseSamples: raw samples past the retention go in a few deletes of many rows,
// however sparse they are. Pruning stepped by a minute of samples took one delete per hour
// of these (a sample an hour), and fell ever further behind the demo at its top speed.
func TestPruneSparseSamples(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
		node := modelstest.Node("n1").A100s(8).Register(t, s, t0)
		const days = 30
		var rows []models.GPUSample
		for h := range days * 24 {
			for _, g := range node.GPUs {
				rows = append(rows, models.GPUSample{GPUID: g.ID, TS: t0.Add(time.Duration(h) * time.Hour).Unix(), UtilPct: 50})
			}
		}
		if err := models.InsertSampleRows(ctx, s, rows); err != nil {
			t.Fatal(err)
		}
		deletes := models.CountSampleDeletes(s)
		now, keep := t0.Add(days*24*time.Hour), 7*24*time.Hour
		if err := s.RollUp(ctx, now, keep); err != nil {
			t.Fatal(err)
		}
		// 23 days × 24 × 8 = 4,416 old samples: one delete of them all.
		if n := deletes.Load(); n > 2 {
			t.Errorf("pruning took %d deletes, want at most 2", n)
		}
		for _, g := range []int64{node.GPUs[0].ID, node.GPUs[7].ID} {
			got, err := models.RawSamples(ctx, s, g)
			if err != nil {
				t.Fatal(err)
			}
			if want := 7 * 24; len(got) != want || got[0].TS != now.Add(-keep).Unix() {
				t.Errorf("GPU %d keeps %d samples from %d, want %d from %d", g, len(got), got[0].TS, want, now.Add(-keep).Unix())
			}
		}
	})
}
