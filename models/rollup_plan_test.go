package models_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

// The 5-minute rollup seeks each GPU's window in the samples' key (gpu_id, ts): its cost is
// the window's samples, not every sample the GPUs have kept (SQLite read a week of them per
// 512 GPUs through a range of ids) nor the whole fleet's window per 512 GPUs (Postgres's
// time index, 0.4–0.8 s a statement at 32,768 GPUs).
func TestRollupSeeksEachGPUsWindow(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		n := registerNode(t, s, "n1", "a100", 4)
		var batch []models.Reading
		for i := range 4 {
			batch = append(batch, sample("n1-gpu"+string(rune('0'+i)), t0, 50, 100))
		}
		if _, err := s.IngestSamples(ctx, n.ID, batch, t0.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		gpus, err := s.BoardGPUs(ctx, models.BoardFilter{})
		if err != nil {
			t.Fatal(err)
		}
		ids := []int64{gpus[0].ID, gpus[1].ID, gpus[3].ID}
		plan, err := models.Explain(ctx, s, models.Rollup5mSQL, models.Rollup5mArgs(s, t0.Unix()-t0.Unix()%models.Rollup5m, ids)...)
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Join(plan, "\n")
		seek := "gpu_id=? AND ts>? AND ts<?" // SQLite: the key's two columns, one GPU at a time
		if models.IsPostgres(s) {
			seek = "Index Cond: ((gpu_id = ANY"
		}
		if !strings.Contains(text, seek) || models.IsPostgres(s) && !strings.Contains(text, "gpu_samples_pkey") {
			t.Fatalf("the rollup does not seek each GPU's window (%q); its plan:\n%s", seek, text)
		}
		if models.IsPostgres(s) && !strings.Contains(text[strings.Index(text, seek):], "ts >=") {
			t.Errorf("the rollup's seek has no time bound; its plan:\n%s", text)
		}
	})
}

// The rollup's window is the first and last sample in it, none when it holds none; the
// bounds are [from, to).
func TestSampleSpan(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		n := registerNode(t, s, "n1", "a100", 2)
		var batch []models.Reading
		for i, at := range []time.Duration{0, 10 * time.Second, time.Minute, 5 * time.Minute} {
			batch = append(batch, sample("n1-gpu"+string(rune('0'+i%2)), t0.Add(at), 50, 100))
		}
		if _, err := s.IngestSamples(ctx, n.ID, batch, t0.Add(6*time.Minute)); err != nil {
			t.Fatal(err)
		}
		at := func(d time.Duration) int64 { return t0.Add(d).Unix() }
		for _, c := range []struct {
			from, to time.Duration
			lo, hi   int64 // 0: none
		}{
			{-time.Hour, time.Hour, at(0), at(5 * time.Minute)},
			{time.Second, 5 * time.Minute, at(10 * time.Second), at(time.Minute)},
			{0, 10 * time.Second, at(0), at(0)},
			{2 * time.Minute, 4 * time.Minute, 0, 0},
		} {
			lo, hi, err := models.SampleSpan(ctx, s, at(c.from), at(c.to))
			if err != nil {
				t.Fatal(err)
			}
			got := [2]int64{}
			if lo != nil {
				got[0] = *lo
			}
			if hi != nil {
				got[1] = *hi
			}
			if (lo == nil) != (hi == nil) || got != [2]int64{c.lo, c.hi} {
				t.Errorf("span of [%v, %v) = %v, %v; want %d, %d", c.from, c.to, lo, hi, c.lo, c.hi)
			}
		}
	})
}
