package models_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"kashi/models"
	"kashi/models/modelstest"
)

func TestTaskReclaimSettings(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		cfg := models.PoolConfig{Provider: "static", Spec: "A100-80G", GPUsPerNode: 2, ReclaimIdleS: 600, ReclaimOff: true}
		if _, err := s.SavePoolConfig(ctx, "a100", cfg, "admin", "", ft0); err != nil {
			t.Fatal(err)
		}
		n := modelstest.Node("n1").Pool("a100").A100s(2).Register(t, s, ft0)
		other := modelstest.Node("n2").Pool("bare").A100s(1).Register(t, s, ft0)
		task := modelstest.Task("vision", "x").Create(t, s, ft0)
		modelstest.Run(t, s, task, n, ft0)
		elsewhere := modelstest.Task("vision", "y").Create(t, s, ft0)
		modelstest.Run(t, s, elsewhere, other, ft0)
		over := models.ReclaimOverride{Never: true, KeepForS: 3600, KeepsPerDay: 3}
		if err := s.SetReclaimOverride(ctx, "lead", task.ProjectID, over, ft0); err != nil {
			t.Fatal(err)
		}
		if err := s.SetReclaimOverride(ctx, "lead", task.ProjectID, models.ReclaimOverride{IdleS: 59}, ft0); !errors.As(err, new(*models.FieldError)) {
			t.Errorf("SetReclaimOverride(idle 59 s) = %v, want a field error", err)
		}
		got, err := s.TaskReclaimSettings(ctx, task.ID)
		want := models.ReclaimSettings{Pool: &cfg, Override: over}
		if diff := cmp.Diff(want, got); err != nil || diff != "" {
			t.Errorf("TaskReclaimSettings = %v (-want +got):\n%s", err, diff)
		}
		// A pool without a configuration has no settings of its own.
		if got, err := s.TaskReclaimSettings(ctx, elsewhere.ID); err != nil || got.Pool != nil || got.Override != over {
			t.Errorf("TaskReclaimSettings of a task in a bare pool = %+v, %v", got, err)
		}
		if _, err := s.TaskReclaimSettings(ctx, 999); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("TaskReclaimSettings(999) = %v, want not found", err)
		}
		all, err := s.ReclaimOverrides(ctx)
		if diff := cmp.Diff(map[int64]models.ReclaimOverride{task.ProjectID: over}, all); err != nil || diff != "" {
			t.Errorf("ReclaimOverrides = %v (-want +got):\n%s", err, diff)
		}
	})
}
