package models_test

import (
	"context"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

// TestTrialsOf: a trial is of the task it tried (its name, in its project), of its full run
// (which takes the trial's name) and of its template's runs, once every run has ended: the
// latest such; another project's task of the same name, a task of another name and a
// trial's own runs have none.
func TestTrialsOf(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		modelstest.Node("a").Pool("a100").A100s(4).Register(t, s, ft0)
		p, err := s.EnsureProject(ctx, "vision", ft0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.EnsureProject(ctx, "nlp", ft0); err != nil {
			t.Fatal(err)
		}
		tpl, err := s.CreateTemplate(ctx, models.NewTemplate{ProjectID: p.ID, Name: "train", Body: models.TemplateBody{GPUs: 1,
			Queue: models.QueueLong, Priority: models.PriorityNormal, Command: []string{"python", "train.py"}}}, "lee", models.DefaultTaskLimits, ft0)
		if err != nil {
			t.Fatal(err)
		}
		create := func(project, name string, template int64) models.Task {
			nt := modelstest.Task(project, name).New()
			nt.TemplateID, nt.TemplateVersion = template, 1
			tk, _, err := s.CreateTask(ctx, nt, models.DefaultTaskLimits, ft0)
			if err != nil {
				t.Fatal(err)
			}
			return tk
		}
		pretrain, other, elsewhere := create("vision", "pretrain", 0), create("vision", "eval", 0), create("nlp", "pretrain", 0)
		fromTpl, laterTpl := create("vision", "tpl-run-1", tpl.ID), create("vision", "tpl-run-2", tpl.ID)
		try := func(base models.NewTask) (models.Trial, []models.Task) {
			tr, runs, err := s.CreateTrial(ctx, models.NewTrial{Task: base, Specs: []string{"A100-80G"}, Sizes: []int{1, 2},
				Bound: 20 * time.Minute}, models.DefaultTaskLimits, ft0)
			if err != nil {
				t.Fatal(err)
			}
			return tr, runs
		}
		end := func(runs []models.Task) {
			for _, r := range runs {
				if err := s.CancelTask(ctx, r.ID, "alice", ft0.Add(time.Minute)); err != nil {
					t.Fatal(err)
				}
			}
		}
		first, firstRuns := try(modelstest.Task("vision", "pretrain").New())
		end(firstRuns)
		latest, latestRuns := try(modelstest.Task("vision", "pretrain").New())
		tplBase := modelstest.Task("vision", "tpl-run-1").New()
		tplBase.TemplateID, tplBase.TemplateVersion = tpl.ID, 1
		ofTpl, ofTplRuns := try(tplBase)
		end(ofTplRuns)

		ids := []int64{pretrain.ID, other.ID, elsewhere.ID, fromTpl.ID, laterTpl.ID, firstRuns[0].ID}
		got, err := s.TrialsOf(ctx, ids)
		if err != nil {
			t.Fatal(err)
		}
		want := map[int64]int64{pretrain.ID: first.ID, fromTpl.ID: ofTpl.ID, laterTpl.ID: ofTpl.ID}
		check := func(when string) {
			t.Helper()
			if len(got) != len(want) {
				t.Errorf("%s: TrialsOf = %d trials, want %d", when, len(got), len(want))
			}
			for id, tr := range want {
				if got[id].ID != tr {
					t.Errorf("%s: trial of task %d = %d, want %d", when, id, got[id].ID, tr)
				}
			}
		}
		check("while the latest trial runs")
		end(latestRuns)
		full, err := s.SubmitTrialFull(ctx, latest.ID, models.FullRun{Spec: "A100-80G", GPUs: 2, By: "alice"}, models.DefaultTaskLimits, ft0.Add(time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if got, err = s.TrialsOf(ctx, append(ids, full.ID)); err != nil {
			t.Fatal(err)
		}
		want[pretrain.ID], want[full.ID] = latest.ID, latest.ID
		check("once it ended")
		if tr, ok, err := s.TemplateTrial(ctx, tpl.ID); err != nil || !ok || tr.ID != ofTpl.ID {
			t.Errorf("TemplateTrial = %d, %v, %v; want %d", tr.ID, ok, err, ofTpl.ID)
		}
		if _, ok, err := s.TemplateTrial(ctx, tpl.ID+1); err != nil || ok {
			t.Errorf("TemplateTrial of another template = %v, %v; want none", ok, err)
		}
	})
}
