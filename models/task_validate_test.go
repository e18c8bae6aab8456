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

func TestValidateTask(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		registerNode(t, s, "v-a100-1", "a100", 4)
		if _, err := s.EnsureProject(ctx, "vision", t0); err != nil {
			t.Fatal(err)
		}
		good := models.NewTask{Project: "vision", Name: "eval", Owner: "ana", GPUs: 2, Spec: "A100-80G",
			Queue: models.QueueShort, Priority: "normal", MaxRuntime: time.Hour, Command: []string{"python", "eval.py"}}
		tests := map[string]struct {
			change func(nt *models.NewTask)
			field  string // "" for valid
		}{
			"valid":               {func(*models.NewTask) {}, ""},
			"too many GPUs":       {func(nt *models.NewTask) { nt.GPUs = 5 }, "gpus"},
			"unknown spec":        {func(nt *models.NewTask) { nt.Spec = "H100-80G" }, "spec"},
			"unknown project":     {func(nt *models.NewTask) { nt.Project = "nope" }, "project"},
			"short lane too long": {func(nt *models.NewTask) { nt.MaxRuntime = 3 * time.Hour }, "max_runtime_s"},
			"empty program":       {func(nt *models.NewTask) { nt.Command = []string{""} }, "command[0]"},
			"image":               {func(nt *models.NewTask) { nt.Image = "registry.example.com:5000/ml/train:2.1" }, ""},
			"image by digest":     {func(nt *models.NewTask) { nt.Image = "pytorch/pytorch@sha256:" + strings.Repeat("a", 64) }, ""},
			"image with a space":  {func(nt *models.NewTask) { nt.Image = "ubuntu; rm -rf /" }, "image"},
			"image as a flag":     {func(nt *models.NewTask) { nt.Image = "--privileged" }, "image"},
		}
		for name, tc := range tests {
			t.Run(name, func(t *testing.T) {
				nt := good
				tc.change(&nt)
				err := s.ValidateTask(ctx, nt, models.DefaultTaskLimits)
				var fe *models.FieldError
				switch {
				case tc.field == "" && err != nil:
					t.Errorf("ValidateTask(...) = %v, want nil", err)
				case tc.field != "" && (!errors.As(err, &fe) || fe.Field != tc.field):
					t.Errorf("ValidateTask(...) = %v, want a FieldError on %s", err, tc.field)
				}
			})
		}
		rows, err := s.Tasks(ctx, models.TaskFilter{})
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 0 {
			t.Errorf("ValidateTask stored %d tasks, want 0", len(rows))
		}
	})
}

func TestNodeNames(t *testing.T) {
	s := modelstest.SQLite(t, models.Options{})
	n := registerNode(t, s, "v-a100-1", "a100", 1)
	got, err := s.NodeNames(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[n.ID] != "v-a100-1" {
		t.Errorf("NodeNames() = %v, want {%d: v-a100-1}", got, n.ID)
	}
}

// TestCreateTaskNamesEveryProblem: a submit with several bad fields is refused naming every
// one (a FieldErrors, in the order the store checks them), not the first alone, and
// errors.As still finds the first as a *FieldError; an unknown project leaves the checks of
// the rest running.
func TestCreateTaskNamesEveryProblem(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		registerNode(t, s, "v-a100-1", "a100", 4)
		if _, err := s.EnsureProject(ctx, "vision", t0); err != nil {
			t.Fatal(err)
		}
		bad := models.NewTask{Project: "nope", Name: "eval", Owner: "ana", GPUs: 0, Queue: models.QueueLong, Priority: "normal",
			MaxRuntime: -1, Command: []string{"python"}, Env: map[string]string{"1X": "a"}, Workdir: "relative/dir"}
		_, _, err := s.CreateTask(ctx, bad, models.DefaultTaskLimits, t0)
		var fields []string
		for _, fe := range models.AllFieldErrors(err) {
			fields = append(fields, fe.Field)
		}
		if want := "project gpus max_runtime_s env workdir"; strings.Join(fields, " ") != want {
			t.Errorf("CreateTask(...) = %v; fields %v, want %s", err, fields, want)
		}
		var fe *models.FieldError
		if !errors.As(err, &fe) || fe.Field != "project" {
			t.Errorf("errors.As(CreateTask(...)) = %v, want the first field error (project)", fe)
		}
		var es models.FieldErrors
		if !errors.As(err, &es) || len(es) != 5 {
			t.Errorf("CreateTask(...) = %#v, want the FieldErrors", err)
		}
		if rows, err := s.Tasks(ctx, models.TaskFilter{}); err != nil || len(rows) != 0 {
			t.Errorf("a refused submit stored %d tasks (%v)", len(rows), err)
		}
	})
}
