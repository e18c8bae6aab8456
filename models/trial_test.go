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

// rtxNode registers host in pool rtx with n RTX4090-24G cards.
func rtxNode(t *testing.T, s *models.Store, host string, n int) models.NodeGPUs {
	return modelstest.Node(host).Pool("rtx").Cards("NVIDIA GeForce RTX 4090", 24_564, n,
		func(i int) string { return fmt.Sprintf("%s-g%d", host, i) }).Register(t, s, ft0)
}

// TestTrialRuns: a trial on two specs at 1 and 2 cards stores one run per spec and size,
// each a task of its own bounded by the trial's time in the short lane and named for its
// spec and size; their cards are the ledger's trial class; the full run is submitted once
// from the first run's task at the spec and size asked, and a second submit is a conflict.
func TestTrialRuns(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		a := modelstest.Node("a").Pool("a100").A100s(4).Register(t, s, ft0)
		rtxNode(t, s, "r", 4)
		if _, err := s.EnsureProject(ctx, "vision", ft0); err != nil {
			t.Fatal(err)
		}
		base := modelstest.Task("vision", "pretrain").New()
		base.Env = map[string]string{"STEPS": "100"}
		tr, runs, err := s.CreateTrial(ctx, models.NewTrial{Task: base, Specs: []string{"A100-80G", "RTX4090-24G"},
			Sizes: []int{2, 1}, Bound: 20 * time.Minute, WorkUnits: 1_000_000, FullGPUs: 8}, models.DefaultTaskLimits, ft0)
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) != 4 || tr.SizeList()[0] != 1 || len(tr.SpecList()) != 2 || tr.BoundS != 1200 || tr.Owner != "alice" {
			t.Fatalf("CreateTrial = %+v, %d runs; want 4 runs of sizes 1 and 2", tr, len(runs))
		}
		got, err := s.TrialRuns(ctx, tr.ID)
		if err != nil || len(got) != 4 {
			t.Fatalf("TrialRuns = %d, %v", len(got), err)
		}
		for i, want := range []struct {
			spec string
			gpus int
		}{{"A100-80G", 1}, {"A100-80G", 2}, {"RTX4090-24G", 1}, {"RTX4090-24G", 2}} {
			r := got[i]
			if r.Spec != want.spec || r.GPUs != want.gpus || r.MaxRuntimeS != 1200 || r.Queue != models.QueueShort ||
				r.MaxAttempts != 1 || r.TrialID == nil || *r.TrialID != tr.ID ||
				r.Name != fmt.Sprintf("pretrain · trial %d × %s", want.gpus, want.spec) {
				t.Errorf("run %d = %s %d × %s, %d s, %s lane, %d attempts, trial %v; want %d × %s", i, r.Name, r.GPUs, r.Spec,
					r.MaxRuntimeS, r.Queue, r.MaxAttempts, r.TrialID, want.gpus, want.spec)
			}
		}
		modelstest.Run(t, s, got[1].Task, a, ft0)
		allocs, err := s.LedgerAllocations(ctx, models.LedgerQuery{From: ft0.Add(-time.Hour), To: ft0.Add(time.Hour)})
		if err != nil || len(allocs) != 2 || !allocs[0].Trial || !allocs[1].Trial {
			t.Errorf("LedgerAllocations = %+v, %v; want the run's 2 cards of the trial class", allocs, err)
		}

		full, err := s.SubmitTrialFull(ctx, tr.ID, models.FullRun{Spec: "RTX4090-24G", GPUs: 4, EstGPUHours: 30, By: "bob"},
			models.DefaultTaskLimits, ft0.Add(time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if full.Spec != "RTX4090-24G" || full.GPUs != 4 || full.EstGPUHours != 30 || full.Owner != "bob" || full.Name != "pretrain" ||
			full.TrialID != nil || full.Queue != models.QueueLong || full.Command != got[0].Command || full.Env != got[0].Env {
			t.Errorf("full run = %+v; want pretrain on 4 RTX4090-24G, bob's, the runs' command and env", full)
		}
		back, _ := s.TrialByID(ctx, tr.ID)
		if back.FullTaskID == nil || *back.FullTaskID != full.ID || back.FullBy != "bob" {
			t.Errorf("trial after its full run = %+v; want full task %d by bob", back, full.ID)
		}
		if _, err := s.SubmitTrialFull(ctx, tr.ID, models.FullRun{Spec: "RTX4090-24G", GPUs: 4, By: "bob"},
			models.DefaultTaskLimits, ft0.Add(time.Hour)); !errors.Is(err, models.ErrConflict) {
			t.Errorf("second full run: %v; want ErrConflict", err)
		}
		if _, err := s.SubmitTrialFull(ctx, tr.ID+100, models.FullRun{Spec: "RTX4090-24G", GPUs: 4, By: "bob"},
			models.DefaultTaskLimits, ft0.Add(time.Hour)); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("full run of no trial: %v; want ErrNotFound", err)
		}
		if ts, err := s.Trials(ctx, []int64{tr.ProjectID}, 10); err != nil || len(ts) != 1 {
			t.Errorf("Trials = %+v, %v; want the one", ts, err)
		}
	})
}

// TestTrialRefused: a trial names every bad field of its own and of its runs at once, and
// stores nothing; a full run the store refuses (more cards than any pool) names its field.
func TestTrialRefused(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		modelstest.Node("a").Pool("a100").A100s(2).Register(t, s, ft0)
		if _, err := s.EnsureProject(ctx, "vision", ft0); err != nil {
			t.Fatal(err)
		}
		base := modelstest.Task("vision", "pretrain").New()
		_, _, err := s.CreateTrial(ctx, models.NewTrial{Task: base, Specs: []string{"A", "B", "C", "D", "E"},
			Sizes: []int{1, 1, 99}, Bound: time.Minute, WorkUnits: -1, FullGPUs: 5000}, models.DefaultTaskLimits, ft0)
		var fes models.FieldErrors
		if !errors.As(err, &fes) {
			t.Fatalf("CreateTrial(bad) = %v; want field errors", err)
		}
		fields := map[string]bool{}
		for _, fe := range fes {
			fields[fe.Field] = true
		}
		for _, f := range []string{"specs", "sizes", "bound_s", "work_units", "full_gpus"} {
			if !fields[f] {
				t.Errorf("CreateTrial(bad) = %v; want %s named", err, f)
			}
		}
		// A run the store refuses: no pool has the spec.
		_, _, err = s.CreateTrial(ctx, models.NewTrial{Task: base, Specs: []string{"A100-80G", "H800"}, Sizes: []int{1},
			Bound: 10 * time.Minute}, models.DefaultTaskLimits, ft0)
		var fe *models.FieldError
		if !errors.As(err, &fe) || fe.Field != "spec" {
			t.Errorf("CreateTrial(H800) = %v; want spec named", err)
		}
		if ts, _ := s.Trials(ctx, nil, 10); len(ts) != 0 {
			t.Errorf("Trials after refusals = %+v; want none", ts)
		}
		if n, _ := s.Tasks(ctx, models.TaskFilter{}); len(n) != 0 {
			t.Errorf("tasks after refusals = %d; want none", len(n))
		}
		tr, _, err := s.CreateTrial(ctx, models.NewTrial{Task: base, Specs: []string{"A100-80G"}, Sizes: []int{1},
			Bound: 10 * time.Minute}, models.DefaultTaskLimits, ft0)
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.SubmitTrialFull(ctx, tr.ID, models.FullRun{Spec: "A100-80G", GPUs: 64, By: "alice"}, models.DefaultTaskLimits, ft0)
		if !errors.As(err, &fe) || fe.Field != "gpus" {
			t.Errorf("full run of 64 cards = %v; want gpus named", err)
		}
		if back, _ := s.TrialByID(ctx, tr.ID); back.FullTaskID != nil {
			t.Errorf("trial after a refused full run = %+v; want none", back)
		}
	})
}
