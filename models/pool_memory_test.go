package models_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/models"
	"kashi/models/modelstest"
)

// The scaling loop reads a pool's memory use over the last minutes every tick; buckets that
// settled at an earlier tick are not read again (a late sample in one no longer counts),
// and every other bucket is what a whole read of the samples gives.
func TestPoolMemoryReadsOnlyWhatHasNotSettled(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		n := registerNode(t, s, "n1", "a100", 2)
		ingest := func(from, to time.Time, now time.Time) {
			t.Helper()
			var batch []models.Reading
			for at := from; at.Before(to); at = at.Add(10 * time.Second) {
				mem := int64(1000 + 100*at.Sub(t0)/time.Minute) // a step each minute
				batch = append(batch, sample("n1-gpu0", at, 50, mem), sample("n1-gpu1", at, 50, 2*mem))
			}
			if _, err := s.IngestSamples(ctx, n.ID, batch, now); err != nil {
				t.Fatal(err)
			}
		}
		read := func(now time.Time) (kept, whole []models.MemoryPoint) {
			t.Helper()
			from := now.Add(-12 * time.Minute)
			kept, err := s.PoolMemory(ctx, n.PoolID, from, now, time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			whole, err = models.ReadPoolMemory(ctx, s, n.PoolID, from, now, time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			return kept, whole
		}
		now := t0.Add(10 * time.Minute)
		ingest(t0, now, now)
		if kept, whole := read(now); len(whole) != 10 || !cmp.Equal(kept, whole) {
			t.Fatalf("first read: %d buckets, %v; want the 10 of a whole read %v", len(kept), kept, whole)
		}
		// A late sample in the settled third minute, then three more minutes.
		late := t0.Add(2*time.Minute + 5*time.Second)
		ingest(now, now.Add(3*time.Minute), now.Add(3*time.Minute))
		now = now.Add(3 * time.Minute)
		if _, err := s.IngestSamples(ctx, n.ID, []models.Reading{sample("n1-gpu0", late, 50, 80000)}, now); err != nil {
			t.Fatal(err)
		}
		kept, whole := read(now)
		if len(kept) != len(whole) || len(kept) != 12 {
			t.Fatalf("second read: %d buckets, a whole read %d; want 12 (minutes 1 to 12)", len(kept), len(whole))
		}
		for i := range kept {
			if kept[i].At.Equal(t0.Add(2 * time.Minute)) {
				if kept[i] == whole[i] {
					t.Errorf("the settled bucket at %v was read again: %v", kept[i].At, kept[i])
				}
				continue
			}
			if kept[i] != whole[i] {
				t.Errorf("bucket %d: %v, a whole read %v", i, kept[i], whole[i])
			}
		}
	})
}
