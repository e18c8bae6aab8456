package models_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

// TestMachineGoneReruns: when the machine under a node is gone for good (the provider no
// longer lists it), the node is given up at once, though it reported a moment ago: its task
// with an attempt left is queued again for its next one, the lost attempt recorded with the
// lost ending and its card-seconds since the checkpoint as the rerun class; a task on its
// last attempt ends failed, as lost. A second call changes nothing.
func TestMachineGoneReruns(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		a := modelstest.Node("a").Pool("a100").A100s(2).Register(t, s, ft0)
		train := modelstest.Task("vision", "train").Create(t, s, ft0)
		once := modelstest.Task("vision", "once").Attempts(1).Create(t, s, ft0)
		modelstest.Run(t, s, train, a, ft0)
		modelstest.Run(t, s, once, a, ft0)
		cp := ft0.Add(40 * time.Minute)
		checkpoint(t, s, a, train.ID, "s3://ckpt/train/step-400", cp)
		now := ft0.Add(time.Hour)
		if _, err := s.IngestSamples(ctx, a.ID, []models.Reading{{UUID: a.GPUs[0].UUID, TS: now}}, now); err != nil {
			t.Fatal(err)
		}
		lost, err := s.MachineGone(ctx, a.ID, now)
		if err != nil || lost == nil || len(lost.Tasks) != 2 {
			t.Fatalf("MachineGone = %+v, %v; want node a given up with its 2 tasks", lost, err)
		}
		got, _ := s.TaskByID(ctx, train.ID)
		if got.State != models.TaskQueued || got.Attempt != 2 || !strings.HasPrefix(got.Reason, "requeued for attempt 2 of 2: node a lost") {
			t.Errorf("train after its machine went: %s, attempt %d, %q; want queued for attempt 2", got.State, got.Attempt, got.Reason)
		}
		attempts, err := s.TaskAttempts(ctx, train.ID)
		if err != nil || len(attempts) != 2 || attempts[0].Ending != models.EndLost || attempts[0].LostS != 20*60 {
			t.Errorf("TaskAttempts = %+v, %v; want the first lost, 20 card-minutes since its checkpoint", attempts, err)
		}
		ended, _ := s.TaskByID(ctx, once.ID)
		if ended.State != models.TaskFailed || models.TaskEnding(ended.State, ended.Reason) != models.EndLost {
			t.Errorf("once after its machine went: %s %q; want failed, lost", ended.State, ended.Reason)
		}
		ledger, err := s.LedgerAllocations(ctx, models.LedgerQuery{From: ft0, To: ft0.Add(24 * time.Hour)})
		var rerun int
		for _, l := range ledger {
			if l.RerunFrom != 0 {
				rerun++
				if l.RerunFrom != cp.Unix() {
					t.Errorf("train's allocation reruns from %d, want its checkpoint %d", l.RerunFrom, cp.Unix())
				}
			}
		}
		if err != nil || rerun != 1 {
			t.Errorf("ledger = %+v, %v; want train's card in the rerun class", ledger, err)
		}
		if again, err := s.MachineGone(ctx, a.ID, now.Add(time.Minute)); err != nil || again != nil {
			t.Errorf("MachineGone again = %+v, %v; want nothing", again, err)
		}
	})
}
