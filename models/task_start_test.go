package models_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/models"
	"kashi/models/modelstest"
)

// TestStartTasks: a tick's one update starts each queued task on its node at its time with
// its reason and event, and leaves a task no longer queued (ErrConflict) or gone
// (ErrNotFound) as it is.
func TestStartTasks(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		n := modelstest.Node("a1").Pool("a100").A100s(2).Register(t, s, t0)
		if _, err := s.EnsureProject(ctx, "vision", t0); err != nil {
			t.Fatal(err)
		}
		queued := modelstest.Task("vision", "q").Create(t, s, t0)
		cancelled := modelstest.Task("vision", "c").Create(t, s, t0)
		if err := s.CancelTask(ctx, cancelled.ID, "u1", t0); err != nil {
			t.Fatal(err)
		}
		at := t0.Add(90 * time.Second)
		refused, err := models.StartTasks(s, n.ID, "placed on [1]", at, queued.ID, cancelled.ID, 1<<40)
		if err != nil {
			t.Fatal(err)
		}
		if len(refused) != 3 || refused[0] != nil || !errors.Is(refused[1], models.ErrConflict) || !errors.Is(refused[2], models.ErrNotFound) {
			t.Fatalf("StartTasks = %v, want nil, ErrConflict, ErrNotFound", refused)
		}
		got, err := s.TaskByID(ctx, queued.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.State != models.TaskStarting || got.NodeID == nil || *got.NodeID != n.ID || got.StartedAt == nil || !got.StartedAt.Equal(at) || got.Reason != "placed on [1]" {
			t.Errorf("started task = %s on %v at %v (%q), want starting on %d at %v", got.State, got.NodeID, got.StartedAt, got.Reason, n.ID, at)
		}
		evs, err := s.TaskEvents(ctx, queued.ID)
		if err != nil {
			t.Fatal(err)
		}
		last := evs[len(evs)-1]
		if diff := cmp.Diff([]any{models.TaskQueued, models.TaskStarting, "placed on [1]", true}, []any{last.From, last.To, last.Reason, last.At.Equal(at)}); diff != "" {
			t.Errorf("last event (-want +got):\n%s", diff)
		}
		if c, err := s.TaskByID(ctx, cancelled.ID); err != nil || c.State != models.TaskCancelled {
			t.Errorf("cancelled task = %s, %v, want it left cancelled", c.State, err)
		}
	})
}
