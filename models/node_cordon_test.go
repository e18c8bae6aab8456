package models_test

import (
	"context"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

// TestCordonNode: a cordon drains a ready node by hand and an uncordon makes it ready again;
// a lost node is not cordoned, and a node the scaling loop drains is not made ready by an
// uncordon; on both databases.
func TestCordonNode(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		if _, err := s.SavePoolConfig(ctx, "a100", a100Config(), "admin", "", ft0); err != nil {
			t.Fatal(err)
		}
		n := fleetNode(t, s, "n1", "a100", "i-1")
		state := func() string {
			t.Helper()
			nodes, err := s.Nodes(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range nodes {
				if x.ID == n.ID {
					return x.State
				}
			}
			t.Fatalf("node %d not listed", n.ID)
			return ""
		}
		step := func(on, wantChanged bool, want string) {
			t.Helper()
			changed, err := s.CordonNode(ctx, n.ID, on)
			if err != nil || changed != wantChanged || state() != want {
				t.Errorf("CordonNode(%t) = %t, %v; node %s; want %t, node %s", on, changed, err, state(), wantChanged, want)
			}
		}
		step(true, true, models.NodeDraining)
		step(true, false, models.NodeDraining)
		step(false, true, models.NodeReady)
		step(false, false, models.NodeReady)

		if err := s.DrainNode(ctx, n.ID, models.ScalingEvent{Kind: "drain", Reason: "node-unneeded"}, ft0.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		step(false, false, models.NodeDraining) // the loop's drain is the loop's to give up

		if _, err := s.MachineGone(ctx, n.ID, ft0.Add(2*time.Minute)); err != nil {
			t.Fatal(err)
		}
		step(true, false, models.NodeLost)
	})
}
