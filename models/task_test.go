package models_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

func newTask(name string, gpus int) models.NewTask {
	return models.NewTask{Project: "vision", Name: name, Owner: "alice", GPUs: gpus, Queue: models.QueueLong,
		Priority: "normal", Command: []string{"python", "train.py"}, DataReady: true}
}

func TestTaskLifecycle(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		n := registerNode(t, s, "n1", "a100", 4)
		if _, err := s.EnsureProject(ctx, "vision", t0); err != nil {
			t.Fatal(err)
		}
		nt := newTask("resnet", 2)
		nt.IdempotencyKey, nt.IdempotencyScope = "k1", "user:1"
		task, created, err := s.CreateTask(ctx, nt, models.DefaultTaskLimits, t0)
		if err != nil || !created || task.State != models.TaskQueued {
			t.Fatalf("CreateTask = %+v, %v, %v", task, created, err)
		}
		again, created, err := s.CreateTask(ctx, nt, models.DefaultTaskLimits, t0)
		if err != nil || created || again.ID != task.ID {
			t.Fatalf("CreateTask with the same key = id %d, created %v, %v; want id %d, false", again.ID, created, err, task.ID)
		}
		nodes, _ := s.Nodes(ctx)
		gpus := []int64{nodes[0].GPUs[0].ID, nodes[0].GPUs[1].ID}
		if err := s.PlaceTask(ctx, task.ID, gpus, false, "placed", t0.Add(time.Minute)); err != nil {
			t.Fatalf("PlaceTask = %v", err)
		}
		// A second task may not take a held GPU: the store refuses and changes nothing.
		other, _, _ := s.CreateTask(ctx, newTask("bert", 1), models.DefaultTaskLimits, t0)
		if err := s.PlaceTask(ctx, other.ID, gpus[:1], false, "placed", t0); !errors.Is(err, models.ErrConflict) {
			t.Fatalf("PlaceTask on a held GPU = %v, want ErrConflict", err)
		}
		if row, _ := s.TaskByID(ctx, other.ID); row.State != models.TaskQueued {
			t.Errorf("refused placement left task %s, want queued", row.State)
		}
		as, err := s.Assignments(ctx, n.ID)
		if err != nil || len(as) != 1 || len(as[0].GPUUUIDs) != 2 || as[0].Command[1] != "train.py" {
			t.Fatalf("Assignments = %+v, %v", as, err)
		}
		report := func(state string, at time.Time, code int) error {
			return s.ReportTaskStatus(ctx, n.ID, task.ID, models.TaskReport{State: state, TS: at, ExitCode: code}, at)
		}
		if err := report(models.ReportRunning, t0.Add(2*time.Minute), 0); err != nil {
			t.Fatal(err)
		}
		if err := report(models.ReportExited, t0.Add(time.Hour), 0); err != nil {
			t.Fatal(err)
		}
		if err := report(models.ReportExited, t0.Add(2*time.Hour), 1); err != nil {
			t.Errorf("a second, late exit = %v, want it accepted", err)
		}
		row, _ := s.TaskByID(ctx, task.ID)
		if row.State != models.TaskSucceeded || row.EndedAt == nil || !row.EndedAt.Equal(t0.Add(time.Hour)) {
			t.Errorf("after exit: state %s ended %v", row.State, row.EndedAt)
		}
		open, _ := s.OpenAllocations(ctx)
		if len(open) != 0 {
			t.Errorf("%d allocations still open after the exit", len(open))
		}
		events, _ := s.TaskEvents(ctx, task.ID)
		var states []string
		for _, e := range events {
			states = append(states, e.To)
		}
		want := []string{models.TaskQueued, models.TaskStarting, models.TaskRunning, models.TaskSucceeded}
		if len(states) != len(want) {
			t.Fatalf("events = %v, want %v", states, want)
		}
		for i := range want {
			if states[i] != want[i] {
				t.Fatalf("events = %v, want %v", states, want)
			}
		}
		// The freed GPU goes to the next task.
		if err := s.PlaceTask(ctx, other.ID, gpus[:1], false, "placed", t0.Add(2*time.Hour)); err != nil {
			t.Errorf("PlaceTask after release = %v", err)
		}
	})
}

// TestFailedStartHasNoExitCode: a task whose process could not be started ends failed with
// no exit code; one that exited keeps its code.
func TestFailedStartHasNoExitCode(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		n := registerNode(t, s, "n1", "a100", 2)
		s.EnsureProject(ctx, "vision", t0)
		nodes, _ := s.Nodes(ctx)
		for i, r := range []models.TaskReport{{State: models.ReportFailedToStart, ExitCode: -1, Message: "no such file"},
			{State: models.ReportExited, ExitCode: 0}} {
			nt := newTask("a", 1)
			nt.MaxAttempts = 1
			task, _, _ := s.CreateTask(ctx, nt, models.DefaultTaskLimits, t0)
			if err := s.PlaceTask(ctx, task.ID, []int64{nodes[0].GPUs[i].ID}, false, "placed", t0); err != nil {
				t.Fatal(err)
			}
			r.TS = t0.Add(time.Minute)
			if err := s.ReportTaskStatus(ctx, n.ID, task.ID, r, r.TS); err != nil {
				t.Fatal(err)
			}
			row, _ := s.TaskByID(ctx, task.ID)
			got := "none"
			if row.ExitCode != nil {
				got = fmt.Sprint(*row.ExitCode)
			}
			if want := map[string]string{models.ReportFailedToStart: "none", models.ReportExited: "0"}[r.State]; got != want {
				t.Errorf("after a report %s: %s, exit code %s; want exit code %s", r.State, row.State, got, want)
			}
		}
	})
}

func TestCancelAndStop(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		n := registerNode(t, s, "n1", "a100", 2)
		s.EnsureProject(ctx, "vision", t0)
		waiting, _, _ := s.CreateTask(ctx, newTask("a", 1), models.DefaultTaskLimits, t0)
		if err := s.CancelTask(ctx, waiting.ID, "alice", t0); err != nil {
			t.Fatal(err)
		}
		if err := s.CancelTask(ctx, waiting.ID, "alice", t0); !errors.Is(err, models.ErrConflict) {
			t.Errorf("second cancel = %v, want ErrConflict", err)
		}
		running, _, _ := s.CreateTask(ctx, newTask("b", 1), models.DefaultTaskLimits, t0)
		nodes, _ := s.Nodes(ctx)
		s.PlaceTask(ctx, running.ID, []int64{nodes[0].GPUs[0].ID}, false, "placed", t0)
		if err := s.RequestStop(ctx, running.ID, models.TaskTimedOut, "max runtime", t0.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		as, _ := s.Assignments(ctx, n.ID)
		if len(as) != 1 || !as[0].Stop {
			t.Fatalf("Assignments after stop request = %+v, want one with Stop", as)
		}
		s.ReportTaskStatus(ctx, n.ID, running.ID, models.TaskReport{State: models.ReportExited, ExitCode: 143, TS: t0.Add(time.Hour)}, t0.Add(time.Hour))
		row, _ := s.TaskByID(ctx, running.ID)
		if row.State != models.TaskTimedOut {
			t.Errorf("stopped task ended %s, want timed-out", row.State)
		}
	})
}
