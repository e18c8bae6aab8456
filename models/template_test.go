package models_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"kashi/models"
	"kashi/models/modelstest"
)

// trainBody is the body of the template the tests start from.
func trainBody() models.TemplateBody {
	return models.TemplateBody{GPUs: 2, Queue: models.QueueLong, Priority: models.PriorityNormal,
		Command: []string{"python", "train.py"}, EnvNames: []string{"WANDB_KEY"}, Workdir: "/data/run", MaxRuntimeS: 3600}
}

// templateStore opens a store with the project vision and a 4-GPU node.
func templateStore(t *testing.T, s *models.Store) models.Project {
	t.Helper()
	registerNode(t, s, "n1", "a100", 4)
	p, err := s.EnsureProject(context.Background(), "vision", t0)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestTemplateVersions(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		p := templateStore(t, s)
		tpl, err := s.CreateTemplate(ctx, models.NewTemplate{ProjectID: p.ID, Name: "train", Body: trainBody()}, "lee", models.DefaultTaskLimits, t0)
		if err != nil || tpl.Version != 1 {
			t.Fatalf("CreateTemplate = %+v, %v; want version 1", tpl, err)
		}
		changed := trainBody()
		changed.GPUs, changed.Priority = 4, models.PriorityHigh
		up, err := s.UpdateTemplate(ctx, tpl.ID, models.NewTemplate{Name: "train", Description: "nightly", Body: changed}, "mei", models.DefaultTaskLimits, t0.Add(time.Hour))
		if err != nil || up.Version != 2 {
			t.Fatalf("UpdateTemplate = %+v, %v; want version 2", up, err)
		}
		same, err := s.UpdateTemplate(ctx, tpl.ID, models.NewTemplate{Name: "train", Description: "nightly", Body: changed}, "mei", models.DefaultTaskLimits, t0.Add(2*time.Hour))
		if err != nil || same.Version != 2 {
			t.Fatalf("UpdateTemplate without a change = %+v, %v; want version 2 kept", same, err)
		}
		versions, err := s.TemplateVersions(ctx, tpl.ID)
		if err != nil {
			t.Fatal(err)
		}
		want := []models.TaskTemplateVersion{
			{TemplateID: tpl.ID, Version: 2, By: "mei", At: t0.Add(time.Hour), Description: "nightly"},
			{TemplateID: tpl.ID, Version: 1, By: "lee", At: t0},
		}
		if diff := cmp.Diff(want, versions, cmpopts.IgnoreFields(models.TaskTemplateVersion{}, "ID", "Body", "Diff")); diff != "" {
			t.Errorf("TemplateVersions (-want +got):\n%s", diff)
		}
		wantDiff := []models.FieldChange{{Field: "description", Before: `""`, After: `"nightly"`},
			{Field: "gpus", Before: "2", After: "4"}, {Field: "priority", Before: `"normal"`, After: `"high"`}}
		if diff := cmp.Diff(wantDiff, versions[0].Changes()); diff != "" {
			t.Errorf("version 2's changes (-want +got):\n%s", diff)
		}
		if got := versions[1].Fields(); got.GPUs != 2 {
			t.Errorf("version 1 body GPUs = %d, want 2 (versions keep their body)", got.GPUs)
		}

		nt := up.Fields().NewTask("vision", "run-1", "lee", map[string]string{"WANDB_KEY": "k"})
		nt.TemplateID, nt.TemplateVersion = up.ID, up.Version
		task, _, err := s.CreateTask(ctx, nt, models.DefaultTaskLimits, t0)
		if err != nil || task.TemplateID == nil || *task.TemplateID != up.ID || task.TemplateVersion != 2 {
			t.Fatalf("CreateTask from the template = %+v, %v; want template %d version 2", task, err, up.ID)
		}
		rows, err := s.Templates(ctx, p.ID)
		if err != nil || len(rows) != 1 || rows[0].Uses != 1 || rows[0].Name != "train" {
			t.Fatalf("Templates = %+v, %v; want train used once", rows, err)
		}
	})
}

func TestTemplateRefusals(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		p := templateStore(t, s)
		other, _ := s.EnsureProject(ctx, "nlp", t0)
		if _, err := s.CreateTemplate(ctx, models.NewTemplate{ProjectID: p.ID, Name: "train", Body: trainBody()}, "lee", models.DefaultTaskLimits, t0); err != nil {
			t.Fatal(err)
		}
		otherTpl, err := s.CreateTemplate(ctx, models.NewTemplate{ProjectID: other.ID, Name: "train", Body: trainBody()}, "lee", models.DefaultTaskLimits, t0)
		if err != nil {
			t.Fatalf("the same name in another project: %v", err)
		}
		tests := map[string]struct {
			edit  func(*models.NewTemplate)
			field string
		}{
			"name taken":       {func(n *models.NewTemplate) {}, "name"},
			"no name":          {func(n *models.NewTemplate) { n.Name = "" }, "name"},
			"too many GPUs":    {func(n *models.NewTemplate) { n.Name = "x"; n.Body.GPUs = 99 }, "gpus"},
			"bad queue":        {func(n *models.NewTemplate) { n.Name = "x"; n.Body.Queue = "fast" }, "queue"},
			"bad env name":     {func(n *models.NewTemplate) { n.Name = "x"; n.Body.EnvNames = []string{"1X"} }, "env_names"},
			"no command":       {func(n *models.NewTemplate) { n.Name = "x"; n.Body.Command = nil }, "command"},
			"long description": {func(n *models.NewTemplate) { n.Name = "x"; n.Description = string(make([]byte, 1001)) }, "description"},
		}
		for name, tc := range tests {
			t.Run(name, func(t *testing.T) {
				nt := models.NewTemplate{ProjectID: p.ID, Name: "train", Body: trainBody()}
				tc.edit(&nt)
				_, err := s.CreateTemplate(ctx, nt, "lee", models.DefaultTaskLimits, t0)
				var fe *models.FieldError
				if !errors.As(err, &fe) || fe.Field != tc.field {
					t.Errorf("CreateTemplate = %v, want a field error on %s", err, tc.field)
				}
			})
		}
		nt := trainBody().NewTask("vision", "run", "lee", map[string]string{"WANDB_KEY": "k"})
		nt.TemplateID, nt.TemplateVersion = otherTpl.ID, 1
		var fe *models.FieldError
		if _, _, err := s.CreateTask(ctx, nt, models.DefaultTaskLimits, t0); !errors.As(err, &fe) || fe.Field != "template" {
			t.Errorf("CreateTask with another project's template = %v, want a field error on template", err)
		}
	})
}
