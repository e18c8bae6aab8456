package models_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

// loseNode makes node silent since at and gives it up at now.
func loseNode(t *testing.T, s *models.Store, n models.NodeGPUs, at, now time.Time) {
	t.Helper()
	if _, err := s.IngestSamples(context.Background(), n.ID, []models.Reading{sample(n.GPUs[0].UUID, at, 90, 1)}, at); err != nil {
		t.Fatal(err)
	}
	lost, err := s.MarkLostNodes(context.Background(), []int64{n.ID}, now.Add(-time.Minute), now)
	if err != nil || len(lost) != 1 {
		t.Fatalf("MarkLostNodes(%s) = %+v, %v; want it lost", n.Hostname, lost, err)
	}
}

// checkpoint reports the task's checkpoint at at, written to where, from node n.
func checkpoint(t *testing.T, s *models.Store, n models.NodeGPUs, id int64, where string, at time.Time) {
	t.Helper()
	r := models.TaskReport{State: models.ReportRunning, TS: at, CheckpointAt: &at, Checkpoint: where}
	if err := s.ReportTaskStatus(context.Background(), n.ID, id, r, at); err != nil {
		t.Fatal(err)
	}
}

// TestLostNodeReruns: a task whose node is lost is queued again for its next attempt, its
// cards given back at the node's last sign of life and its seconds since its checkpoint
// lost to the rerun; its next run, on another node, is told to resume from the checkpoint;
// lost again with no attempt left, it ends failed saying so.
func TestLostNodeReruns(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		a := modelstest.Node("a").Pool("a100").A100s(2).Register(t, s, ft0)
		b := modelstest.Node("b").Pool("a100").A100s(2).Register(t, s, ft0)
		task := modelstest.Task("vision", "train").GPUs(2).Create(t, s, ft0)
		if task.MaxAttempts != models.DefaultMaxAttempts || task.Attempt != 1 {
			t.Fatalf("new task: attempt %d of %d, want 1 of %d", task.Attempt, task.MaxAttempts, models.DefaultMaxAttempts)
		}
		modelstest.Run(t, s, task, a, ft0)
		cp := ft0.Add(40 * time.Minute)
		checkpoint(t, s, a, task.ID, "s3://ckpt/train/step-400", cp)
		seen := ft0.Add(time.Hour)
		loseNode(t, s, a, seen, ft0.Add(2*time.Hour))

		got, _ := s.TaskByID(ctx, task.ID)
		if got.State != models.TaskQueued || got.Attempt != 2 || got.StartedAt != nil || got.EndedAt != nil ||
			!strings.HasPrefix(got.Reason, "requeued for attempt 2 of 2: node a lost: last seen ") {
			t.Fatalf("task after its node was lost: %s, attempt %d, started %v, ended %v, %q; want queued for attempt 2",
				got.State, got.Attempt, got.StartedAt, got.EndedAt, got.Reason)
		}
		if open, _ := s.OpenAllocations(ctx); len(open) != 0 {
			t.Errorf("open allocations after the rerun = %+v, want none", open)
		}
		attempts, err := s.TaskAttempts(ctx, task.ID)
		if err != nil || len(attempts) != 2 {
			t.Fatalf("TaskAttempts = %+v, %v; want the lost attempt and the queued one", attempts, err)
		}
		first := attempts[0]
		if first.Attempt != 1 || first.Ending != models.EndLost || !first.EndedAt.Equal(seen) || first.Checkpoint != "s3://ckpt/train/step-400" ||
			len(first.Nodes) != 1 || first.Nodes[0] != "a" || first.LostS != 2*20*60 || first.Current {
			t.Errorf("first attempt = %+v; want lost on a at %v, 2 cards × 20 min lost since its checkpoint", first, seen)
		}
		if second := attempts[1]; second.Attempt != 2 || !second.Current || second.StartedAt != nil || len(second.Nodes) != 0 {
			t.Errorf("second attempt = %+v; want the current one, waiting", second)
		}
		ledger, err := s.LedgerAllocations(ctx, models.LedgerQuery{From: ft0, To: ft0.Add(24 * time.Hour)})
		if err != nil || len(ledger) != 2 || ledger[0].RerunFrom != cp.Unix() || ledger[1].RerunFrom != cp.Unix() || ledger[0].End != seen.Unix() {
			t.Errorf("ledger allocations = %+v, %v; want the lost attempt's 2, lost from the checkpoint", ledger, err)
		}

		// The next run, on node b, resumes from the checkpoint.
		rerunAt := ft0.Add(2*time.Hour + time.Minute)
		modelstest.Run(t, s, got.Task, b, rerunAt)
		as, err := s.Assignments(ctx, b.ID)
		if err != nil || len(as) != 1 || as[0].Attempt != 2 || as[0].ResumeFrom != "s3://ckpt/train/step-400" || as[0].NNodes != 1 {
			t.Fatalf("assignments of b = %+v, %v; want attempt 2 resuming from the checkpoint on one node", as, err)
		}
		// Node a comes back, its agent still running the first attempt, which it stops: the
		// exit of the old run changes nothing.
		back := rerunAt.Add(time.Minute)
		s.IngestSamples(ctx, a.ID, []models.Reading{sample(a.GPUs[0].UUID, back, 1, 1)}, back)
		if as, _ := s.Assignments(ctx, a.ID); len(as) != 0 {
			t.Errorf("assignments of a, back = %+v, want none", as)
		}
		if err := s.ReportTaskStatus(ctx, a.ID, task.ID, models.TaskReport{State: models.ReportExited, ExitCode: 143, TS: back}, back); err != nil {
			t.Fatal(err)
		}
		stale := ft0.Add(10 * time.Minute)
		checkpoint(t, s, a, task.ID, "s3://ckpt/train/step-100", stale)
		if got, _ := s.TaskByID(ctx, task.ID); got.State != models.TaskRunning || got.LastCheckpoint != "s3://ckpt/train/step-400" {
			t.Fatalf("task after the old run's reports: %s from %q, want still running from step-400", got.State, got.LastCheckpoint)
		}

		// Lost again: no attempt left.
		loseNode(t, s, b, rerunAt.Add(30*time.Minute), rerunAt.Add(time.Hour))
		got, _ = s.TaskByID(ctx, task.ID)
		if got.State != models.TaskFailed || !strings.HasSuffix(got.Reason, "; no attempt left (2 of 2)") ||
			models.TaskEnding(got.State, got.Reason) != models.EndLost {
			t.Errorf("task lost on its last attempt: %s, %q; want failed, lost, no attempt left", got.State, got.Reason)
		}
		attempts, _ = s.TaskAttempts(ctx, task.ID)
		if len(attempts) != 2 || attempts[1].Ending != models.EndLost || attempts[1].EndedAt == nil || attempts[1].Nodes[0] != "b" {
			t.Errorf("attempts at the end = %+v; want the second ended lost on b", attempts)
		}
	})
}

// TestRerunNeedsItsOwnChoice: a task that exits non-zero by itself ends failed unless it
// asked to be rerun; one that fails to start is never rerun; a stop asked of a task (a
// cancel) holds when its node is lost; one allowed a single attempt is never rerun.
func TestRerunNeedsItsOwnChoice(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		n := modelstest.Node("n").Pool("a100").A100s(4).Register(t, s, ft0)
		end := ft0.Add(time.Hour)
		exit := func(task models.Task, r models.TaskReport) models.TaskRow {
			t.Helper()
			modelstest.Run(t, s, task, n, ft0)
			r.TS = end
			if err := s.ReportTaskStatus(ctx, n.ID, task.ID, r, end); err != nil {
				t.Fatal(err)
			}
			got, _ := s.TaskByID(ctx, task.ID)
			return got
		}
		plain := modelstest.Task("vision", "plain").Create(t, s, ft0)
		if got := exit(plain, models.TaskReport{State: models.ReportExited, ExitCode: 3}); got.State != models.TaskFailed || got.Reason != "exited 3" {
			t.Errorf("plain task exiting 3: %s, %q; want failed, not rerun", got.State, got.Reason)
		}
		asked := modelstest.Task("vision", "asked").RerunOnFailure().Create(t, s, ft0)
		if got := exit(asked, models.TaskReport{State: models.ReportExited, ExitCode: 3}); got.State != models.TaskQueued ||
			got.Reason != "requeued for attempt 2 of 2: exited 3" {
			t.Errorf("task asking for reruns exiting 3: %s, %q; want queued again", got.State, got.Reason)
		}
		broken := modelstest.Task("vision", "broken").RerunOnFailure().Create(t, s, ft0)
		if got := exit(broken, models.TaskReport{State: models.ReportFailedToStart, Message: "no such file"}); got.State != models.TaskFailed {
			t.Errorf("task that failed to start: %s, %q; want failed", got.State, got.Reason)
		}
		if attempts, _ := s.TaskAttempts(ctx, asked.ID); len(attempts) != 2 || attempts[0].Ending != models.EndFailed {
			t.Errorf("attempts of the task rerun on failure = %+v", attempts)
		}

		m := modelstest.Node("m").Pool("a100").A100s(4).Register(t, s, ft0)
		cancelled := modelstest.Task("vision", "cancelled").Create(t, s, ft0)
		once := modelstest.Task("vision", "once").Attempts(1).Create(t, s, ft0)
		modelstest.Run(t, s, cancelled, m, ft0)
		modelstest.Run(t, s, once, m, ft0)
		if err := s.CancelTask(ctx, cancelled.ID, "alice", ft0.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		loseNode(t, s, m, ft0.Add(2*time.Minute), ft0.Add(time.Hour))
		if got, _ := s.TaskByID(ctx, cancelled.ID); got.State != models.TaskFailed || strings.Contains(got.Reason, "attempt") {
			t.Errorf("cancelled task on a lost node: %s, %q; want failed as before", got.State, got.Reason)
		}
		if got, _ := s.TaskByID(ctx, once.ID); got.State != models.TaskFailed || !strings.HasSuffix(got.Reason, "; no attempt left (1 of 1)") {
			t.Errorf("task of one attempt on a lost node: %s, %q; want failed, no attempt left", got.State, got.Reason)
		}
	})
}

// TestMultiNodeRerun: a task of two nodes that loses one asks the other to stop, and is
// queued again once that one exited, the next attempt placed afresh.
func TestMultiNodeRerun(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		a := modelstest.Node("a").Pool("a100").A100s(2).Register(t, s, ft0)
		b := modelstest.Node("b").Pool("a100").A100s(2).Register(t, s, ft0)
		task := modelstest.Task("vision", "ddp").GPUs(4).Create(t, s, ft0)
		gpus := []int64{a.GPUs[0].ID, a.GPUs[1].ID, b.GPUs[0].ID, b.GPUs[1].ID}
		if err := s.PlaceTask(ctx, task.ID, gpus, false, "placed", ft0); err != nil {
			t.Fatal(err)
		}
		s.IngestSamples(ctx, b.ID, []models.Reading{sample(b.GPUs[0].UUID, ft0.Add(2*time.Hour), 90, 1)}, ft0.Add(2*time.Hour))
		loseNode(t, s, a, ft0.Add(time.Hour), ft0.Add(2*time.Hour))
		got, _ := s.TaskByID(ctx, task.ID)
		as, _ := s.Assignments(ctx, b.ID)
		if got.State != models.TaskStarting || got.StopState != models.TaskQueued || len(as) != 1 || !as[0].Stop {
			t.Fatalf("task after node a was lost: %s, stop %q, b's assignments %+v; want b asked to stop for a rerun", got.State, got.StopState, as)
		}
		stop := ft0.Add(2*time.Hour + time.Minute)
		if err := s.ReportTaskStatus(ctx, b.ID, task.ID, models.TaskReport{State: models.ReportExited, ExitCode: 143, TS: stop}, stop); err != nil {
			t.Fatal(err)
		}
		got, _ = s.TaskByID(ctx, task.ID)
		if got.State != models.TaskQueued || got.Attempt != 2 || got.Reason != "requeued for attempt 2 of 2: node a (rank 0) lost" {
			t.Fatalf("task once b exited: %s, attempt %d, %q; want queued for attempt 2", got.State, got.Attempt, got.Reason)
		}
		// The second attempt runs on b alone (a is lost) and any other node: its shape is its own.
		c := modelstest.Node("c").Pool("a100").A100s(2).Register(t, s, ft0)
		if err := s.PlaceTask(ctx, task.ID, []int64{b.GPUs[0].ID, b.GPUs[1].ID, c.GPUs[0].ID, c.GPUs[1].ID}, false, "placed", stop); err != nil {
			t.Fatal(err)
		}
		as, _ = s.Assignments(ctx, c.ID)
		if len(as) != 1 || as[0].NNodes != 2 || as[0].NodeRank != 1 || as[0].MasterAddr != "b" || as[0].Stop || as[0].Attempt != 2 {
			t.Errorf("c's assignment of attempt 2 = %+v; want rank 1 of 2 behind b", as)
		}
		if as, _ := s.Assignments(ctx, b.ID); len(as) != 1 || as[0].Stop {
			t.Errorf("b's assignment of attempt 2 = %+v; want it to run (its exit was the last attempt's)", as)
		}
	})
}

// TestMaxAttemptsRange: a task may ask for 1 to 10 attempts; a service for none beyond its
// first.
func TestMaxAttemptsRange(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		modelstest.Node("n").Pool("a100").A100s(1).Register(t, s, ft0)
		s.EnsureProject(ctx, "vision", ft0)
		for _, c := range []struct {
			nt    models.NewTask
			field string
		}{
			{modelstest.Task("vision", "eleven").Attempts(11).New(), "max_attempts"},
			{modelstest.Task("vision", "negative").Attempts(-1).New(), "max_attempts"},
			{modelstest.Task("vision", "svc").Service("m", 8000, 0).Attempts(2).New(), "max_attempts"},
			{modelstest.Task("vision", "svc2").Service("m", 8000, 0).RerunOnFailure().New(), "rerun_on_failure"},
		} {
			_, _, err := s.CreateTask(ctx, c.nt, models.DefaultTaskLimits, ft0)
			var fe *models.FieldError
			if !errors.As(err, &fe) || fe.Field != c.field {
				t.Errorf("CreateTask(%s) = %v; want a FieldError on %s", c.nt.Name, err, c.field)
			}
		}
		ten, _, err := s.CreateTask(ctx, modelstest.Task("vision", "ten").Attempts(10).New(), models.DefaultTaskLimits, ft0)
		if err != nil || ten.MaxAttempts != 10 {
			t.Errorf("CreateTask of 10 attempts = %d, %v", ten.MaxAttempts, err)
		}
	})
}
