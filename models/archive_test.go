package models_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

// TestArchiveOutbox: an upload is stored once per key whoever finds its record twice; it is
// due at once, then after its back-off; failures counted by passes at once are all counted;
// once arrived it is due no more, its body let go, and the counts say so.
func TestArchiveOutbox(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		up := func(key string, id int64) models.ArchiveUpload {
			return models.ArchiveUpload{Kind: models.ArchiveBills, Key: key, SourceID: id, SourceAt: t0.Add(time.Duration(id) * time.Minute),
				Body: []byte("body of " + key), SHA256: "x", ContentType: "text/csv"}
		}
		if n, err := s.EnqueueArchive(ctx, []models.ArchiveUpload{up("a", 1), up("b", 2)}, t0); n != 2 || err != nil {
			t.Fatalf("EnqueueArchive = %d, %v; want 2", n, err)
		}
		if n, err := s.EnqueueArchive(ctx, []models.ArchiveUpload{up("b", 2), up("c", 3)}, t0); n != 1 || err != nil {
			t.Fatalf("EnqueueArchive again = %d, %v; want only c added", n, err)
		}
		if id, at, err := s.ArchiveMark(ctx, models.ArchiveBills); id != 3 || !at.Equal(t0.Add(3*time.Minute)) || err != nil {
			t.Errorf("ArchiveMark = %d, %s, %v; want 3 at %s", id, at, err, t0.Add(3*time.Minute))
		}
		if id, at, err := s.ArchiveMark(ctx, models.ArchivePools); id != 0 || !at.IsZero() || err != nil {
			t.Errorf("ArchiveMark of none = %d, %s, %v", id, at, err)
		}
		due, err := s.ArchiveDue(ctx, t0, 10)
		if err != nil || len(due) != 3 || string(due[0].Body) != "body of a" || due[0].Size != int64(len("body of a")) {
			t.Fatalf("ArchiveDue = %+v, %v", due, err)
		}
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				if err := s.ArchiveFailed(ctx, due[0].ID, "refused", t0.Add(time.Minute)); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if err := s.ArchiveArrived(ctx, due[1].ID, "v1", t0); err != nil {
			t.Fatal(err)
		}
		if due, err = s.ArchiveDue(ctx, t0.Add(time.Second), 10); err != nil || len(due) != 1 || due[0].Key != "c" {
			t.Errorf("due during a's back-off = %+v, %v; want c only", due, err)
		}
		box, err := s.ArchiveQueue(ctx, 10)
		if err != nil || box.Pending != 1 || box.Failing != 1 || box.Arrived != 1 || box.LastArrived == nil ||
			len(box.Waiting) != 2 || box.Waiting[0].Key != "a" || box.Waiting[0].Attempts != 4 || box.Waiting[0].LastError != "refused" {
			t.Fatalf("ArchiveQueue = %+v, %v; want a failing 4 times first, c pending, b arrived", box, err)
		}
		if due, err = s.ArchiveDue(ctx, t0.Add(time.Minute), 10); err != nil || len(due) != 2 {
			t.Errorf("due after the back-off = %d, %v; want a and c", len(due), err)
		}
	})
}
