package models_test

import (
	"context"
	"testing"

	"kashi/models"
	"kashi/models/modelstest"
)

func TestAssignmentCarriesImage(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		n := registerNode(t, s, "n1", "a100", 1)
		if _, err := s.EnsureProject(ctx, "vision", t0); err != nil {
			t.Fatal(err)
		}
		nt := newTask("boxed", 1)
		nt.Image = "nvcr.io/nvidia/pytorch:24.05-py3"
		task, _, err := s.CreateTask(ctx, nt, models.DefaultTaskLimits, t0)
		if err != nil {
			t.Fatal(err)
		}
		nodes, _ := s.Nodes(ctx)
		if err := s.PlaceTask(ctx, task.ID, []int64{nodes[0].GPUs[0].ID}, false, "placed", t0); err != nil {
			t.Fatal(err)
		}
		as, err := s.Assignments(ctx, n.ID)
		if err != nil || len(as) != 1 || as[0].Image != nt.Image {
			t.Errorf("Assignments = %+v, %v; want the task with image %s", as, err, nt.Image)
		}
	})
}
