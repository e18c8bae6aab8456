package models_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/models"
	"kashi/models/modelstest"
)

// The board's rows are what one join of every GPU with its node, pool, open allocation,
// task and project gives, in the same order (pool, hostname, GPU index), though the board
// reads its nodes and GPUs from the fleet cache and only the holders each time: nodes
// registered out of that order, a removed node, a task that ended and ones that hold cards,
// in two projects and two pools, one of them placed in a region.
func TestBoardIsTheJoinOfItsRows(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		t0 := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
		n2 := modelstest.Node("n2").Pool("b").A100s(2).Register(t, s, t0)
		z1 := modelstest.Node("z1").Pool("a").A100s(2).Register(t, s, t0)
		modelstest.Node("n10").Pool("b").A100s(1).Register(t, s, t0)
		n3 := modelstest.Node("n3").Pool("b").A100s(1).Register(t, s, t0)
		if _, err := s.SavePoolConfig(ctx, "a", models.PoolConfig{Provider: "sim", Spec: "A100-80G", GPUsPerNode: 2, MaxNodes: 2, Region: "cn-east", Zone: "az1"}, "admin", "", t0); err != nil {
			t.Fatal(err)
		}
		ev := models.ScalingEvent{Kind: "drain"}
		if err := s.DrainNode(ctx, n3.ID, ev, t0); err != nil {
			t.Fatal(err)
		}
		ev.Kind = "remove"
		if _, err := s.RemoveNode(ctx, n3.ID, ev, t0); err != nil {
			t.Fatal(err)
		}
		ended := modelstest.Task("vision", "ended").GPUs(1).Create(t, s, t0)
		modelstest.Run(t, s, ended, z1, t0)
		if err := s.ReportTaskStatus(ctx, z1.ID, ended.ID, models.TaskReport{State: models.ReportExited, TS: t0.Add(time.Minute)}, t0.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		modelstest.Run(t, s, modelstest.Task("vision", "train").Owner("alice").GPUs(2).Create(t, s, t0), z1, t0.Add(2*time.Minute))
		modelstest.Run(t, s, modelstest.Task("nlp", "eval").Owner("bob").GPUs(1).Create(t, s, t0), n2, t0.Add(3*time.Minute))

		if err := models.RefreshBoard(ctx, s); err != nil {
			t.Fatal(err)
		}
		got, err := s.BoardGPUs(ctx, models.BoardFilter{})
		if err != nil {
			t.Fatal(err)
		}
		want, err := models.BoardByJoin(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		if len(want) != 5 {
			t.Fatalf("the join gives %d rows, want the 5 cards of the nodes not removed", len(want))
		}
		held := 0
		for _, r := range want {
			if r.TaskID != 0 {
				held++
			}
		}
		if held != 3 {
			t.Fatalf("the join gives %d held cards, want 3", held)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("board rows (-join +board):\n%s", diff)
		}
		pools, specs, projects, err := s.BoardOptions(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([][]string{{"a", "b"}, {"A100-80G"}, {"nlp", "vision"}}, [][]string{pools, specs, projects}); diff != "" {
			t.Errorf("board options (-want +got):\n%s", diff)
		}
	})
}
