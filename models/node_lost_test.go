package models_test

import (
	"context"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

func TestMarkLostNodes(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		dead := registerNode(t, s, "dead", "a100", 2)
		alive := registerNode(t, s, "alive", "a100", 2)
		s.EnsureProject(ctx, "vision", t0)
		nodes, _ := s.Nodes(ctx)
		gpuOf := map[int64]int64{}
		for _, n := range nodes {
			gpuOf[n.ID] = n.GPUs[0].ID
		}
		once := newTask("on-dead", 1)
		once.MaxAttempts = 1 // never rerun: TestLostNodeReruns has the rerun
		onDead, _, _ := s.CreateTask(ctx, once, models.DefaultTaskLimits, t0)
		onAlive, _, _ := s.CreateTask(ctx, newTask("on-alive", 1), models.DefaultTaskLimits, t0)
		s.PlaceTask(ctx, onDead.ID, []int64{gpuOf[dead.ID]}, false, "placed", t0)
		s.PlaceTask(ctx, onAlive.ID, []int64{gpuOf[alive.ID]}, false, "placed", t0)
		// The dead node last reported at t0+10m; the alive one keeps reporting, so asking for
		// both gives up only the dead one.
		s.IngestSamples(ctx, dead.ID, []models.Reading{sample("dead-gpu0", t0.Add(10*time.Minute), 90, 1)}, t0.Add(10*time.Minute))
		now := t0.Add(time.Hour)
		s.IngestSamples(ctx, alive.ID, []models.Reading{sample("alive-gpu0", now, 90, 1)}, now)

		lost, err := s.MarkLostNodes(ctx, []int64{dead.ID, alive.ID}, now.Add(-10*time.Minute), now)
		if err != nil || len(lost) != 1 || lost[0].NodeID != dead.ID || len(lost[0].Tasks) != 1 {
			t.Fatalf("MarkLostNodes = %+v, %v; want the dead node with its task", lost, err)
		}
		row, _ := s.TaskByID(ctx, onDead.ID)
		if row.State != models.TaskFailed || row.EndedAt == nil || !row.EndedAt.Equal(t0.Add(10*time.Minute)) {
			t.Errorf("task on the lost node: %s ended %v, want failed at its last sign of life", row.State, row.EndedAt)
		}
		open, _ := s.OpenAllocations(ctx)
		if len(open) != 1 || open[0].TaskID != onAlive.ID {
			t.Errorf("open allocations = %+v, want only the alive node's", open)
		}
		// Again: nothing more to give up.
		if lost, _ := s.MarkLostNodes(ctx, []int64{dead.ID, alive.ID}, now.Add(-10*time.Minute), now); len(lost) != 0 {
			t.Errorf("second MarkLostNodes = %+v, want none", lost)
		}
		// The lost node reports again: it is ready.
		s.IngestSamples(ctx, dead.ID, []models.Reading{sample("dead-gpu0", now, 1, 1)}, now)
		nodes, _ = s.Nodes(ctx)
		for _, n := range nodes {
			if n.State != models.NodeReady {
				t.Errorf("node %s is %s after reporting, want ready", n.Hostname, n.State)
			}
		}
	})
}
