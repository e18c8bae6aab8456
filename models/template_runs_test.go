package models_test

import (
	"context"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

// TestTemplateRunsLeaveTrialsOut: a template's runs are the tasks submitted from it that
// started and ended, the latest ended first; a trial of one of them carries the template's
// id on its runs, but those 1- and 2-card measurements are not the template's runs, even
// when they ended last.
func TestTemplateRunsLeaveTrialsOut(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		node := modelstest.Node("a").Pool("a100").A100s(4).Register(t, s, ft0)
		p, err := s.EnsureProject(ctx, "vision", ft0)
		if err != nil {
			t.Fatal(err)
		}
		tpl, err := s.CreateTemplate(ctx, models.NewTemplate{ProjectID: p.ID, Name: "train", Body: models.TemplateBody{GPUs: 4,
			Queue: models.QueueLong, Priority: models.PriorityNormal, Command: []string{"python", "train.py"}}}, "lee", models.DefaultTaskLimits, ft0)
		if err != nil {
			t.Fatal(err)
		}
		fromTpl := func() models.NewTask {
			nt := modelstest.Task("vision", "train").GPUs(4).New()
			nt.TemplateID, nt.TemplateVersion = tpl.ID, 1
			return nt
		}
		exit := func(tk models.Task, at time.Time) {
			t.Helper()
			rep := models.TaskReport{State: models.ReportExited, TS: at}
			if err := s.ReportTaskStatus(ctx, node.ID, tk.ID, rep, at); err != nil {
				t.Fatal(err)
			}
		}
		real, _, err := s.CreateTask(ctx, fromTpl(), models.DefaultTaskLimits, ft0)
		if err != nil {
			t.Fatal(err)
		}
		modelstest.Run(t, s, real, node, ft0)
		exit(real, ft0.Add(time.Hour))
		_, runs, err := s.CreateTrial(ctx, models.NewTrial{Task: fromTpl(), Specs: []string{"A100-80G"}, Sizes: []int{1},
			Bound: 20 * time.Minute}, models.DefaultTaskLimits, ft0.Add(2*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if runs[0].TemplateID == nil || *runs[0].TemplateID != tpl.ID {
			t.Fatalf("trial run's template = %v, want %d", runs[0].TemplateID, tpl.ID)
		}
		modelstest.Run(t, s, runs[0], node, ft0.Add(2*time.Hour))
		exit(runs[0], ft0.Add(2*time.Hour+20*time.Minute))

		got, err := s.TemplateRuns(ctx, tpl.ID, 5)
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for _, tk := range got {
			ids = append(ids, tk.ID)
		}
		if len(ids) != 1 || ids[0] != real.ID {
			t.Errorf("TemplateRuns = tasks %v; want only its run %d, not trial run %d", ids, real.ID, runs[0].ID)
		}
	})
}
