package models_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/models"
	"kashi/models/modelstest"
)

// TestFleetReadFollowsEveryWrite: after each write that changes a node or a card (a
// registration, a pool's configuration, a cordon and its end, a drain and its end,
// readings, readings of processes of no task, a node given up as lost and reporting again, a
// removal), the fleet
// the scheduler reads (Nodes, from the fleet cache) is the one the database holds. On SQLite
// and Postgres.
func TestFleetReadFollowsEveryWrite(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		same := func(after string) {
			t.Helper()
			cached, err := s.Nodes(ctx)
			if err != nil {
				t.Fatal(err)
			}
			fresh, err := models.FreshNodes(ctx, s)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(fresh, cached); d != "" {
				t.Fatalf("after %s, Nodes differs from the database (-database +Nodes):\n%s", after, d)
			}
		}
		n1 := registerNode(t, s, "n1", "a100", 2)
		same("a registration")
		n2 := registerNode(t, s, "n2", "a100", 2)
		same("a second registration")
		cfg := a100Config()
		cfg.Region = "cn-east-1"
		if _, err := s.SavePoolConfig(ctx, "a100", cfg, "ada", "region", t0); err != nil {
			t.Fatal(err)
		}
		same("a pool's configuration")
		if _, err := s.CordonNode(ctx, n1.ID, true); err != nil {
			t.Fatal(err)
		}
		same("a cordon")
		ev := models.ScalingEvent{At: t0, PoolID: n2.PoolID, Kind: "drain", Reason: "test"}
		if err := s.DrainNode(ctx, n2.ID, ev, t0); err != nil {
			t.Fatal(err)
		}
		same("a drain")
		ev.Kind = "undrain"
		if err := s.UndrainNode(ctx, n2.ID, ev, t0); err != nil {
			t.Fatal(err)
		}
		same("a drain's end")
		at := t0.Add(time.Minute)
		if _, err := s.IngestSamples(ctx, n1.ID, []models.Reading{sample("n1-gpu0", at, 90, 1000)}, at); err != nil {
			t.Fatal(err)
		}
		same("readings")
		stray := sample("n1-gpu1", at.Add(time.Second), 50, 4000)
		stray.Processes = []models.ProcessReading{{PID: 7, UsedMemoryMiB: 4000, Unmanaged: true, User: "bob", Command: "python"}}
		if _, err := s.IngestSamples(ctx, n1.ID, []models.Reading{stray}, at.Add(time.Second)); err != nil {
			t.Fatal(err)
		}
		same("readings of a process of no task")
		now := t0.Add(time.Hour)
		if lost, err := s.MarkLostNodes(ctx, []int64{n2.ID}, now.Add(-10*time.Minute), now); err != nil || len(lost) != 1 {
			t.Fatalf("MarkLostNodes = %+v, %v", lost, err)
		}
		same("a node given up as lost")
		if _, err := s.IngestSamples(ctx, n2.ID, []models.Reading{sample("n2-gpu0", now, 10, 100)}, now); err != nil {
			t.Fatal(err)
		}
		same("a lost node reporting again")
		if _, err := s.CordonNode(ctx, n1.ID, false); err != nil {
			t.Fatal(err)
		}
		same("a cordon lifted")
		ev.Kind = "drain"
		if err := s.DrainNode(ctx, n2.ID, ev, now); err != nil {
			t.Fatal(err)
		}
		ev.Kind = "remove"
		if _, err := s.RemoveNode(ctx, n2.ID, ev, now); err != nil {
			t.Fatal(err)
		}
		same("a removal")
	})
}
