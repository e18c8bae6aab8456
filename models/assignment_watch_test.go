package models_test

import (
	"context"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

// woken waits for the wait's channel; the bound only ends a broken test (nothing waits
// for it when the wake works), it is not the assertion.
func woken(t *testing.T, w *models.AssignmentWait, what string) {
	t.Helper()
	select {
	case <-w.C:
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not wake the waiting request", what)
	}
}

// A placement, a stop and a reclaim each wake the request waiting for their node, on the
// replica that wrote them and on another one over the same database; a node without a
// change is not woken by another's.
func TestAssignmentWaitWokenByChanges(t *testing.T) {
	t0 := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	modelstest.ForEachDBReplicas(t, models.Options{}, func(t *testing.T, leader, other *models.Store) {
		ctx := context.Background()
		n1 := modelstest.Node("n1").A100s(2).Register(t, leader, t0)
		n2 := modelstest.Node("n2").A100s(2).Register(t, leader, t0)
		for name, on := range map[string]*models.Store{"leader": leader, "other replica": other} {
			w1, err := on.WaitAssignments(ctx, n1.ID)
			if err != nil {
				t.Fatal(err)
			}
			w2, err := on.WaitAssignments(ctx, n2.ID)
			if err != nil {
				t.Fatal(err)
			}
			task := modelstest.Task("vision", "train-"+name).GPUs(1).Create(t, leader, t0)
			if err := leader.PlaceTask(ctx, task.ID, []int64{n2.GPUs[0].ID}, false, "placed", t0); err != nil {
				t.Fatal(err)
			}
			woken(t, w2, "a placement on n2 seen by the "+name)
			if w2.Ended() {
				t.Errorf("%s: the placement's wake says the wait ended", name)
			}
			select {
			case <-w1.C:
				t.Errorf("%s: n1 was woken by a placement on n2", name)
			default:
			}
			w2, err = on.WaitAssignments(ctx, n2.ID)
			if err != nil {
				t.Fatal(err)
			}
			if err := leader.CancelTask(ctx, task.ID, "tester", t0); err != nil {
				t.Fatal(err)
			}
			woken(t, w2, "a stop on n2 seen by the "+name)
			w1.Stop()
			if err := leader.ReportTaskStatus(ctx, n2.ID, task.ID, models.TaskReport{State: models.ReportExited, TS: t0}, t0); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// A second request of a node ends the first one's wait, and so does the server's shutdown,
// which also ends every later wait at once.
func TestAssignmentWaitEnds(t *testing.T) {
	s := modelstest.SQLite(t, models.Options{})
	ctx := context.Background()
	first, err := s.WaitAssignments(ctx, 7)
	if err != nil {
		t.Fatal(err)
	}
	second, err := s.WaitAssignments(ctx, 7)
	if err != nil {
		t.Fatal(err)
	}
	woken(t, first, "a second request")
	if !first.Ended() {
		t.Error("the replaced wait does not say it ended")
	}
	s.EndAssignmentWaits()
	woken(t, second, "the shutdown")
	later, err := s.WaitAssignments(ctx, 8)
	if err != nil {
		t.Fatal(err)
	}
	woken(t, later, "a wait after the shutdown")
	if !second.Ended() || !later.Ended() {
		t.Error("waits ended by the shutdown do not say so")
	}
}
