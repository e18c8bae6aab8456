package models_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

// TestPipelineCancelRacesTheLoop: a cancel at the moment the runner submits the next stage is
// serialised by the pipeline's row: whichever comes first, the pipeline ends cancelled, the stage
// is skipped or its task cancelled, and nothing is left running or advanced after (8 rounds,
// SQLite and Postgres).
func TestPipelineCancelRacesTheLoop(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		n := modelstest.Node("a").Pool("a100").A100s(2).Register(t, s, ft0)
		if _, err := s.EnsureProject(ctx, "vision", ft0); err != nil {
			t.Fatal(err)
		}
		at := ft0
		for round := range 8 {
			pipe, err := s.CreatePipeline(ctx, models.NewPipeline{Project: "vision", Name: "race", Owner: "alice",
				Stages: []models.NewStage{stage("clean", "clean"), stage("train", "train", "clean")}}, models.DefaultTaskLimits, at)
			if err != nil {
				t.Fatal(err)
			}
			_, rows := stageStates(t, s, pipe.ID, at)
			endTask(t, s, n, *rows["clean"].TaskID, 0, at, time.Minute)
			at = at.Add(time.Minute)
			var wg sync.WaitGroup
			var advErr, cancelErr error
			wg.Add(2)
			go func() { defer wg.Done(); _, advErr = s.AdvancePipelines(ctx, models.DefaultTaskLimits, at) }()
			go func() { defer wg.Done(); _, cancelErr = s.CancelPipeline(ctx, pipe.ID, "bob", at) }()
			wg.Wait()
			if advErr != nil || cancelErr != nil {
				t.Fatalf("round %d: AdvancePipelines: %v; CancelPipeline: %v", round, advErr, cancelErr)
			}
			if p, _ := s.PipelineByID(ctx, pipe.ID); p.State != models.PipelineCancelled {
				t.Fatalf("round %d: pipeline %s, want cancelled", round, p.State)
			}
			states, rows := stageStates(t, s, pipe.ID, at)
			if states["clean"] != models.StageSucceeded || (states["train"] != models.StageSkipped && states["train"] != models.StageFailed) {
				t.Fatalf("round %d: stages %v; want clean succeeded, train skipped or failed", round, states)
			}
			if id := rows["train"].TaskID; id != nil {
				if tr, _ := s.TaskByID(ctx, *id); tr.State != models.TaskCancelled {
					t.Fatalf("round %d: train's task is %s, want cancelled", round, tr.State)
				}
			}
			if active, _ := s.ActiveTasks(ctx); len(active) != 0 {
				t.Fatalf("round %d: %d active tasks, want none", round, len(active))
			}
			if moved, err := s.AdvancePipelines(ctx, models.DefaultTaskLimits, at); err != nil || moved != 0 {
				t.Fatalf("round %d: AdvancePipelines after = %d, %v; want 0", round, moved, err)
			}
			at = at.Add(time.Minute)
		}
	})
}
