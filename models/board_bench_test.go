package models_test

import (
	"context"
	"fmt"
	"testing"

	"kashi/models"
	"kashi/models/modelstest"
)

// benchFleet stores the load's fleet on SQLite: 512 nodes × 8 GPUs, one GPU of each node
// held by a task.
func benchFleet(b *testing.B) *models.Store {
	const nodes, perNode = 512, 8
	s := modelstest.SQLite(b, models.Options{})
	ctx := context.Background()
	for i := range nodes {
		host := fmt.Sprintf("n%03d", i)
		if _, err := s.RegisterNode(ctx, modelstest.Node(host).Pool("a100").A100s(perNode).Registration(), "hash-"+host, t0); err != nil {
			b.Fatal(err)
		}
	}
	fleet, err := s.Nodes(ctx)
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range fleet {
		task := modelstest.Task("vision", "t-"+n.Hostname).Create(b, s, t0)
		if err := s.PlaceTask(ctx, task.ID, []int64{n.GPUs[0].ID}, false, "placed", t0); err != nil {
			b.Fatal(err)
		}
	}
	return s
}

// BenchmarkBoardSnapshot measures reading the board's snapshot of 4,096 GPUs after a change
// of holders (a placement, an ending), which the board's keeper or the first request after
// it pays; the nodes and GPUs come from the fleet cache.
func BenchmarkBoardSnapshot(b *testing.B) {
	s := benchFleet(b)
	b.ResetTimer()
	for range b.N {
		if err := models.RefreshBoard(context.Background(), s); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNodes measures reading the fleet of 4,096 GPUs as every scheduler pass does.
func BenchmarkNodes(b *testing.B) {
	s := benchFleet(b)
	b.ResetTimer()
	for range b.N {
		if _, err := s.Nodes(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}
