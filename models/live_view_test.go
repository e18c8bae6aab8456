package models_test

import (
	"context"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

// TestLiveViewBounded: the live view holds one entry per GPU and node however many readings
// arrive, and lets go of the GPUs and nodes of a removed node when the board is read again,
// so a fleet whose machines come and go does not grow it.
func TestLiveViewBounded(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		n1, n2 := registerNode(t, s, "n1", "p", 2), registerNode(t, s, "n2", "p", 2)
		for i := range 50 {
			at := t0.Add(time.Duration(i) * 10 * time.Second)
			for _, n := range []models.Node{n1, n2} {
				rs := []models.Reading{{UUID: n.Hostname + "-gpu0", TS: at, UtilPct: i}, {UUID: n.Hostname + "-gpu1", TS: at, UtilPct: 100 - i}}
				if _, err := s.IngestSamples(ctx, n.ID, rs, at); err != nil {
					t.Fatal(err)
				}
			}
		}
		if g, n := models.LiveSize(s); g != 4 || n != 2 {
			t.Fatalf("after 200 readings the live view holds %d GPUs and %d nodes, want 4 and 2", g, n)
		}
		if err := models.MarkRemoved(ctx, s, n2.ID); err != nil {
			t.Fatal(err)
		}
		rows, err := s.BoardGPUs(ctx, models.BoardFilter{})
		if err != nil || len(rows) != 2 || rows[0].UtilPct != 49 {
			t.Fatalf("board after n2's removal: %d rows (%v), first at %d%%; want 2 with n1's latest 49%%", len(rows), err, rows[0].UtilPct)
		}
		if g, n := models.LiveSize(s); g != 2 || n != 1 {
			t.Errorf("after n2's removal the live view holds %d GPUs and %d nodes, want 2 and 1", g, n)
		}
	})
}
