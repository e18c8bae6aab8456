package models_test

import (
	"context"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

// TestConcurrentNodeExits: the nodes of a task exiting at once end it, whichever commits
// last; none of their reports is refused.
func TestConcurrentNodeExits(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		var nodes []models.NodeGPUs
		var gpus []int64
		for _, h := range []string{"n1", "n2", "n3", "n4"} {
			n := modelstest.Node(h).Pool("a100").A100s(2).Register(t, s, ft0)
			nodes = append(nodes, n)
			for _, g := range n.GPUs {
				gpus = append(gpus, g.ID)
			}
		}
		task := modelstest.Task("vision", "ddp").GPUs(8).Create(t, s, ft0)
		if err := s.PlaceTask(ctx, task.ID, gpus, false, "placed", ft0); err != nil {
			t.Fatal(err)
		}
		end := ft0.Add(time.Hour)
		errs := race(len(nodes), func(i int) error {
			return s.ReportTaskStatus(ctx, nodes[i].ID, task.ID, models.TaskReport{State: models.ReportExited, TS: end}, end)
		})
		for i, err := range errs {
			if err != nil {
				t.Errorf("ReportTaskStatus of node %d: %v", i+1, err)
			}
		}
		got, err := s.TaskByID(ctx, task.ID)
		if err != nil || got.State != models.TaskSucceeded {
			t.Errorf("task after all its nodes exited = %s, %v; want succeeded", got.State, err)
		}
	})
}
