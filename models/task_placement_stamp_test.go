package models_test

import (
	"context"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

// A scheduler tick reads its clock, then its snapshot; an exit reported in between (stamped
// later than the tick's clock) frees a card the snapshot then sees free. The next holder's
// allocation must open when the card was freed, not at the tick's earlier time, or the
// ledger holds the same card-seconds twice (found by the crash proof).
func TestPlaceOpensNoEarlierThanTheCardWasFreed(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		n := registerNode(t, s, "n1", "a100", 1)
		s.EnsureProject(ctx, "vision", t0)
		nodes, _ := s.Nodes(ctx)
		gpu := nodes[0].GPUs[0].ID
		first, _, _ := s.CreateTask(ctx, newTask("first", 1), models.DefaultTaskLimits, t0)
		second, _, _ := s.CreateTask(ctx, newTask("second", 1), models.DefaultTaskLimits, t0)
		if err := s.PlaceTask(ctx, first.ID, []int64{gpu}, false, "placed", t0); err != nil {
			t.Fatal(err)
		}
		freed := t0.Add(20 * time.Minute)
		if err := s.ReportTaskStatus(ctx, n.ID, first.ID, models.TaskReport{State: models.ReportExited, TS: freed}, freed); err != nil {
			t.Fatal(err)
		}
		tick := t0.Add(19 * time.Minute) // the tick's clock, read before the exit came in
		if err := s.PlaceTask(ctx, second.ID, []int64{gpu}, false, "placed", tick); err != nil {
			t.Fatal(err)
		}
		open, _ := s.OpenAllocations(ctx)
		if len(open) != 1 || !open[0].StartedAt.Equal(freed) {
			t.Fatalf("open allocations = %+v, want the second task's from %v", open, freed)
		}
		row, _ := s.TaskByID(ctx, second.ID)
		if row.StartedAt == nil || !row.StartedAt.Equal(freed) {
			t.Errorf("second task started at %v, want %v", row.StartedAt, freed)
		}
		// A card free since before the tick opens at the tick's time.
		third, _, _ := s.CreateTask(ctx, newTask("third", 1), models.DefaultTaskLimits, t0)
		later := t0.Add(time.Hour)
		s.ReportTaskStatus(ctx, n.ID, second.ID, models.TaskReport{State: models.ReportExited, TS: t0.Add(30 * time.Minute)}, later)
		if err := s.PlaceTask(ctx, third.ID, []int64{gpu}, false, "placed", later); err != nil {
			t.Fatal(err)
		}
		if row, _ := s.TaskByID(ctx, third.ID); row.StartedAt == nil || !row.StartedAt.Equal(later) {
			t.Errorf("third task started at %v, want the tick's %v", row.StartedAt, later)
		}
	})
}
