package models_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/models"
	"kashi/models/modelstest"
)

// stage is a one-card stage of project vision running cmd after parents.
func stage(name, cmd string, after ...string) models.NewStage {
	return models.NewStage{Name: name, After: after, Task: modelstest.Task("vision", name).Spec("A100-80G").New()}
}

// stageStates are a pipeline's stages' states by name.
func stageStates(t *testing.T, s *models.Store, id int64, now time.Time) (map[string]string, map[string]models.StageRow) {
	t.Helper()
	rows, err := s.PipelineStages(context.Background(), id, now)
	if err != nil {
		t.Fatal(err)
	}
	states, byName := map[string]string{}, map[string]models.StageRow{}
	for _, r := range rows {
		states[r.Name], byName[r.Name] = r.State, r
	}
	return states, byName
}

// endTask runs a stage's task on n from at and reports it exited with code after d.
func endTask(t *testing.T, s *models.Store, n models.NodeGPUs, id int64, code int, at time.Time, d time.Duration) {
	t.Helper()
	ctx := context.Background()
	task, err := s.TaskByID(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	modelstest.Run(t, s, task.Task, n, at)
	end := at.Add(d)
	if err := s.ReportTaskStatus(ctx, n.ID, id, models.TaskReport{State: models.ReportExited, ExitCode: code, TS: end}, end); err != nil {
		t.Fatal(err)
	}
}

// TestPipelineRunsStageByStage: only the first stage is submitted; each later one is
// submitted once its parent succeeded, told where its parent wrote and waiting for it to be
// visible there; a failure skips what follows and fails the pipeline, naming the stage; a
// rerun submits the failed stage again, not the one that succeeded, and the pipeline
// succeeds. The stages' time holding cards spans every run. On SQLite and Postgres.
func TestPipelineRunsStageByStage(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		s.SetDataRoots([]string{"/shared"})
		n := modelstest.Node("a").Pool("a100").A100s(2).Register(t, s, ft0)
		if _, err := s.EnsureProject(ctx, "vision", ft0); err != nil {
			t.Fatal(err)
		}
		clean, train, eval := stage("clean", "clean"), stage("train", "train", "clean"), stage("eval", "eval", "train")
		clean.Output = "/shared/pipe/clean"
		cleanup := stage("cleanup", "rm")
		cleanup.AfterEnded = []string{"eval"}
		// Given children first: stored parents first.
		pipe, err := s.CreatePipeline(ctx, models.NewPipeline{Project: "vision", Name: "nightly", Owner: "alice",
			Stages: []models.NewStage{eval, cleanup, train, clean}}, models.DefaultTaskLimits, ft0)
		if err != nil {
			t.Fatal(err)
		}
		states, rows := stageStates(t, s, pipe.ID, ft0)
		want := map[string]string{"clean": models.StageSubmitted, "train": models.StageWaiting, "eval": models.StageWaiting, "cleanup": models.StageWaiting}
		if diff := cmp.Diff(want, states); diff != "" {
			t.Fatalf("stages after submit (-want +got):\n%s", diff)
		}
		if rows["clean"].Position != 0 || rows["cleanup"].Position != 3 {
			t.Fatalf("positions clean %d cleanup %d, want 0 and 3", rows["clean"].Position, rows["cleanup"].Position)
		}
		if active, _ := s.ActiveTasks(ctx); len(active) != 1 {
			t.Fatalf("%d active tasks, want the first stage's alone", len(active))
		}
		endTask(t, s, n, *rows["clean"].TaskID, 0, ft0, time.Hour)
		if moved, err := s.AdvancePipelines(ctx, models.DefaultTaskLimits, ft0.Add(time.Hour)); err != nil || moved != 1 {
			t.Fatalf("AdvancePipelines = %d, %v; want 1", moved, err)
		}
		if moved, err := s.AdvancePipelines(ctx, models.DefaultTaskLimits, ft0.Add(time.Hour)); err != nil || moved != 0 {
			t.Fatalf("AdvancePipelines again = %d, %v; want 0", moved, err)
		}
		states, rows = stageStates(t, s, pipe.ID, ft0.Add(time.Hour))
		if states["clean"] != models.StageSucceeded || states["train"] != models.StageSubmitted {
			t.Fatalf("stages after clean: %v", states)
		}
		tr, _ := s.TaskByID(ctx, *rows["train"].TaskID)
		env := map[string]string{}
		env["KASHI_PIPELINE_STAGE"], env["KASHI_STAGE_INPUT"], env["KASHI_STAGE_INPUT_CLEAN"] = "train", "/shared/pipe/clean", "/shared/pipe/clean"
		env["KASHI_PIPELINE"] = strconv.FormatInt(pipe.ID, 10)
		var gotEnv map[string]string
		json.Unmarshal([]byte(tr.Env), &gotEnv)
		if !cmp.Equal(env, gotEnv) {
			t.Fatalf("train's env = %v, want %v", gotEnv, env)
		}
		if tr.Name != "nightly/train" || tr.State != models.TaskWaitingData || tr.DataCheck != `{"path":"/shared/pipe/clean"}` {
			t.Fatalf("train: %q %s check %s; want nightly/train waiting for its input", tr.Name, tr.State, tr.DataCheck)
		}
		if err := s.MarkTaskReady(ctx, tr.ID, "found", ft0.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		endTask(t, s, n, tr.ID, 3, ft0.Add(time.Hour), 2*time.Hour)
		if _, err := s.AdvancePipelines(ctx, models.DefaultTaskLimits, ft0.Add(3*time.Hour)); err != nil {
			t.Fatal(err)
		}
		states, rows = stageStates(t, s, pipe.ID, ft0.Add(3*time.Hour))
		want = map[string]string{"clean": models.StageSucceeded, "train": models.StageFailed, "eval": models.StageSkipped, "cleanup": models.StageSubmitted}
		if diff := cmp.Diff(want, states); diff != "" {
			t.Fatalf("stages after train failed (-want +got):\n%s", diff)
		}
		if rows["eval"].Reason != "parent train" || rows["train"].Reason != "task failed" {
			t.Fatalf("reasons: eval %q, train %q", rows["eval"].Reason, rows["train"].Reason)
		}
		if _, err := s.RerunPipeline(ctx, pipe.ID, models.DefaultTaskLimits, ft0.Add(3*time.Hour)); !errors.Is(err, models.ErrConflict) {
			t.Fatalf("rerun of a running pipeline: %v, want a conflict", err)
		}
		endTask(t, s, n, *rows["cleanup"].TaskID, 0, ft0.Add(3*time.Hour), time.Minute)
		s.AdvancePipelines(ctx, models.DefaultTaskLimits, ft0.Add(4*time.Hour))
		got, _ := s.PipelineByID(ctx, pipe.ID)
		if got.State != models.PipelineFailed || got.Reason != "stage train" || got.EndedAt == nil {
			t.Fatalf("pipeline: %s %q ended %v; want failed at stage train", got.State, got.Reason, got.EndedAt)
		}

		if _, err := s.RerunPipeline(ctx, pipe.ID, models.DefaultTaskLimits, ft0.Add(5*time.Hour)); err != nil {
			t.Fatal(err)
		}
		states, rows = stageStates(t, s, pipe.ID, ft0.Add(5*time.Hour))
		want = map[string]string{"clean": models.StageSucceeded, "train": models.StageSubmitted, "eval": models.StageWaiting, "cleanup": models.StageWaiting}
		if diff := cmp.Diff(want, states); diff != "" {
			t.Fatalf("stages after the rerun (-want +got):\n%s", diff)
		}
		at := ft0.Add(5 * time.Hour)
		for _, name := range []string{"train", "eval", "cleanup"} {
			_, rows = stageStates(t, s, pipe.ID, at)
			id := *rows[name].TaskID
			if name == "train" {
				s.MarkTaskReady(ctx, id, "found", at)
			}
			endTask(t, s, n, id, 0, at, time.Hour)
			at = at.Add(time.Hour)
			if _, err := s.AdvancePipelines(ctx, models.DefaultTaskLimits, at); err != nil {
				t.Fatal(err)
			}
		}
		got, _ = s.PipelineByID(ctx, pipe.ID)
		_, rows = stageStates(t, s, pipe.ID, at)
		if got.State != models.PipelineSucceeded || got.Run != 2 {
			t.Fatalf("pipeline after its rerun: %s run %d, want succeeded in run 2", got.State, got.Run)
		}
		// clean ran once (the first hour); train twice (1 h to 3 h failed, 5 h to 6 h in the rerun).
		c, st := rows["clean"], rows["train"]
		if !c.HeldFrom.Equal(ft0) || !c.HeldTo.Equal(ft0.Add(time.Hour)) || !st.HeldFrom.Equal(ft0.Add(time.Hour)) || !st.HeldTo.Equal(ft0.Add(6*time.Hour)) {
			t.Fatalf("cards held: clean %v to %v, train %v to %v; want 0 h to 1 h and 1 h to 6 h after ft0", c.HeldFrom, c.HeldTo, st.HeldFrom, st.HeldTo)
		}

		// The history, as a trace: each stage's task names its stage and how it ended, and
		// follows its parents' tasks of its run (train's rerun follows the first run's clean);
		// cleanup, which follows eval whatever its end, has no parent there.
		spans, err := s.TaskSpans(ctx, ft0.Add(-time.Hour), ft0.Add(24*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		type line struct {
			Stage, State string
			Parents      []string
		}
		stageOf := map[int64]string{}
		for _, sp := range spans {
			stageOf[sp.ID] = sp.Stage
		}
		var lines []line
		for _, sp := range spans {
			l := line{Stage: sp.Stage, State: sp.State}
			for _, p := range sp.Parents {
				l.Parents = append(l.Parents, stageOf[p])
			}
			lines = append(lines, l)
		}
		wantLines := []line{{"clean", models.TaskSucceeded, nil}, {"train", models.TaskFailed, []string{"clean"}},
			{"cleanup", models.TaskSucceeded, nil}, {"train", models.TaskSucceeded, []string{"clean"}},
			{"eval", models.TaskSucceeded, []string{"train"}}, {"cleanup", models.TaskSucceeded, nil}}
		if diff := cmp.Diff(wantLines, lines); diff != "" {
			t.Errorf("the history's stages (-want +got):\n%s", diff)
		}
		if len(spans) == 6 && (spans[4].Parents[0] != spans[3].ID || spans[3].Parents[0] != spans[0].ID) {
			t.Errorf("eval follows task %v and train's rerun %v, want the rerun's train %d and clean %d",
				spans[4].Parents, spans[3].Parents, spans[3].ID, spans[0].ID)
		}
	})
}

// TestPipelineRefused: a bad pipeline is refused whole, each problem named by its field (a
// stage's as stages[i].field), and nothing is stored.
func TestPipelineRefused(t *testing.T) {
	s := modelstest.SQLite(t, models.Options{})
	ctx := context.Background()
	modelstest.Node("a").Pool("a100").A100s(2).Register(t, s, ft0)
	if _, err := s.EnsureProject(ctx, "vision", ft0); err != nil {
		t.Fatal(err)
	}
	big := stage("big", "x")
	big.Task.GPUs = 9
	big.Output = "relative/path"
	cases := map[string]struct {
		stages []models.NewStage
		fields []string
	}{
		"none":          {nil, []string{"stages"}},
		"bad name":      {[]models.NewStage{stage("Clean", "x")}, []string{"stages[0].name"}},
		"twice":         {[]models.NewStage{stage("a", "x"), stage("a", "y")}, []string{"stages[1].name"}},
		"unknown after": {[]models.NewStage{stage("a", "x", "b")}, []string{"stages[0].after"}},
		"itself":        {[]models.NewStage{stage("a", "x", "a")}, []string{"stages[0].after"}},
		"cycle":         {[]models.NewStage{stage("a", "x", "c"), stage("b", "x", "a"), stage("c", "x", "b")}, []string{"stages[0].after"}},
		"stage fields":  {[]models.NewStage{stage("a", "x"), big}, []string{"stages[1].output", "stages[1].gpus"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := s.CreatePipeline(ctx, models.NewPipeline{Project: "vision", Name: "p", Owner: "alice", Stages: tc.stages},
				models.DefaultTaskLimits, ft0)
			var got []string
			for _, fe := range models.AllFieldErrors(err) {
				got = append(got, fe.Field)
			}
			if diff := cmp.Diff(tc.fields, got); diff != "" {
				t.Fatalf("fields named (-want +got):\n%s\n%v", diff, err)
			}
		})
	}
	if ps, _ := s.Pipelines(ctx, nil, 10); len(ps) != 0 {
		t.Fatalf("%d pipelines stored, want none", len(ps))
	}
}

// TestCancelPipeline: cancelling a running pipeline keeps the stage that succeeded, cancels
// the queued stage's task at once (its stage fails, "task cancelled"), asks the node of the
// running one to stop it (its stage settles once the process has exited), and skips the
// stages that wait, naming who cancelled; the pipeline ends cancelled, audited, and can be
// neither cancelled again nor rerun. On SQLite and Postgres.
func TestCancelPipeline(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		n := modelstest.Node("a").Pool("a100").A100s(2).Register(t, s, ft0)
		if _, err := s.EnsureProject(ctx, "vision", ft0); err != nil {
			t.Fatal(err)
		}
		side := stage("side", "side")
		side.Task.GPUs = 2 // waits while train holds a card
		report := stage("report", "report")
		report.AfterEnded = []string{"eval"}
		pipe, err := s.CreatePipeline(ctx, models.NewPipeline{Project: "vision", Name: "nightly", Owner: "alice",
			Stages: []models.NewStage{stage("prep", "prep"), side, stage("train", "train", "prep"), stage("eval", "eval", "train"), report}},
			models.DefaultTaskLimits, ft0)
		if err != nil {
			t.Fatal(err)
		}
		_, rows := stageStates(t, s, pipe.ID, ft0)
		endTask(t, s, n, *rows["prep"].TaskID, 0, ft0, time.Hour)
		at := ft0.Add(time.Hour)
		if _, err := s.AdvancePipelines(ctx, models.DefaultTaskLimits, at); err != nil {
			t.Fatal(err)
		}
		_, rows = stageStates(t, s, pipe.ID, at)
		train, _ := s.TaskByID(ctx, *rows["train"].TaskID)
		modelstest.Run(t, s, train.Task, n, at)
		sideTask := *rows["side"].TaskID

		got, err := s.CancelPipeline(ctx, pipe.ID, "mia", at)
		if err != nil {
			t.Fatal(err)
		}
		if got.State != models.PipelineCancelled || got.Reason != "cancelled mia" || got.EndedAt == nil {
			t.Fatalf("CancelPipeline = %s %q ended %v; want cancelled by mia", got.State, got.Reason, got.EndedAt)
		}
		states, rows := stageStates(t, s, pipe.ID, at)
		want := map[string]string{"prep": models.StageSucceeded, "side": models.StageFailed, "train": models.StageSubmitted,
			"eval": models.StageSkipped, "report": models.StageSkipped}
		if diff := cmp.Diff(want, states); diff != "" {
			t.Fatalf("stages after the cancel (-want +got):\n%s", diff)
		}
		if rows["side"].Reason != "task cancelled" || rows["eval"].Reason != "cancelled mia" || rows["report"].Reason != "cancelled mia" {
			t.Fatalf("reasons: side %q, eval %q, report %q", rows["side"].Reason, rows["eval"].Reason, rows["report"].Reason)
		}
		if st, _ := s.TaskByID(ctx, sideTask); st.State != models.TaskCancelled {
			t.Fatalf("side's task %s, want cancelled at once", st.State)
		}
		if tr, _ := s.TaskByID(ctx, train.ID); tr.State != models.TaskRunning || tr.StopState != models.TaskCancelled {
			t.Fatalf("train's task %s stop %q, want running and asked to stop as cancelled", tr.State, tr.StopState)
		}
		entries, err := s.AuditLog(ctx, models.AuditFilter{Actor: "mia"})
		if err != nil {
			t.Fatal(err)
		}
		var actions []string
		for _, e := range entries {
			actions = append(actions, e.Action+" "+e.Subject)
		}
		slices.Sort(actions)
		if diff := cmp.Diff([]string{fmt.Sprintf("pipeline-cancel pipeline %d", pipe.ID), fmt.Sprintf("task-cancel task %d", sideTask),
			fmt.Sprintf("task-cancel task %d", train.ID)}, actions); diff != "" {
			t.Fatalf("audit (-want +got):\n%s", diff)
		}
		if _, err := s.CancelPipeline(ctx, pipe.ID, "mia", at); !errors.Is(err, models.ErrConflict) {
			t.Fatalf("a second cancel: %v, want a conflict", err)
		}
		if _, err := s.RerunPipeline(ctx, pipe.ID, models.DefaultTaskLimits, at); !errors.Is(err, models.ErrConflict) {
			t.Fatalf("rerun of a cancelled pipeline: %v, want a conflict", err)
		}
		if _, err := s.CancelPipeline(ctx, 999, "mia", at); !errors.Is(err, models.ErrNotFound) {
			t.Fatalf("cancel of no pipeline: %v, want not found", err)
		}

		// The node stops train: its stage settles, the pipeline stays cancelled.
		end := at.Add(time.Minute)
		if err := s.ReportTaskStatus(ctx, n.ID, train.ID, models.TaskReport{State: models.ReportExited, ExitCode: 137, TS: end}, end); err != nil {
			t.Fatal(err)
		}
		if moved, err := s.AdvancePipelines(ctx, models.DefaultTaskLimits, end); err != nil || moved != 1 {
			t.Fatalf("AdvancePipelines = %d, %v; want 1", moved, err)
		}
		states, rows = stageStates(t, s, pipe.ID, end)
		p, _ := s.PipelineByID(ctx, pipe.ID)
		if states["train"] != models.StageFailed || rows["train"].Reason != "task cancelled" || p.State != models.PipelineCancelled {
			t.Fatalf("after train stopped: stage %s %q, pipeline %s; want failed (task cancelled), cancelled", states["train"], rows["train"].Reason, p.State)
		}
		if active, _ := s.ActiveTasks(ctx); len(active) != 0 {
			t.Fatalf("%d active tasks after the cancel, want none", len(active))
		}
	})
}
