package models_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

// placedTask registers a node and places one 1-GPU task on it.
func placedTask(t *testing.T, s *models.Store) (models.Node, models.Task) {
	t.Helper()
	ctx := context.Background()
	n := registerNode(t, s, "n1", "a100", 2)
	if _, err := s.EnsureProject(ctx, "vision", t0); err != nil {
		t.Fatal(err)
	}
	task, _, err := s.CreateTask(ctx, newTask("resnet", 1), models.DefaultTaskLimits, t0)
	if err != nil {
		t.Fatal(err)
	}
	nodes, _ := s.Nodes(ctx)
	if err := s.PlaceTask(ctx, task.ID, []int64{nodes[0].GPUs[0].ID}, false, "placed", t0); err != nil {
		t.Fatal(err)
	}
	return n, task
}

func TestReportOutputUnitsAndCheckpoint(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		n, task := placedTask(t, s)
		cp := t0.Add(5 * time.Minute)
		reports := []models.TaskReport{
			{State: models.ReportRunning, TS: t0.Add(time.Minute)},
			{State: models.ReportRunning, TS: t0.Add(6 * time.Minute), OutputUnits: 1200, OutputUnit: "samples", CheckpointAt: &cp},
			{State: models.ReportRunning, TS: t0.Add(7 * time.Minute)}, // nothing new: kept
		}
		for _, r := range reports {
			if err := s.ReportTaskStatus(ctx, n.ID, task.ID, r, r.TS); err != nil {
				t.Fatalf("ReportTaskStatus(%+v) = %v", r, err)
			}
		}
		row, _ := s.TaskByID(ctx, task.ID)
		if row.OutputUnits != 1200 || row.OutputUnit != "samples" || row.LastCheckpointAt == nil || !row.LastCheckpointAt.Equal(cp) {
			t.Errorf("task output = %d %q checkpoint %v, want 1200 samples at %s", row.OutputUnits, row.OutputUnit, row.LastCheckpointAt, cp)
		}
		exit := models.TaskReport{State: models.ReportExited, TS: t0.Add(time.Hour), OutputUnits: 5000, OutputUnit: "samples"}
		if err := s.ReportTaskStatus(ctx, n.ID, task.ID, exit, exit.TS); err != nil {
			t.Fatal(err)
		}
		if row, _ := s.TaskByID(ctx, task.ID); row.OutputUnits != 5000 || row.State != models.TaskSucceeded {
			t.Errorf("after exit: %d units, state %s; want 5000, succeeded", row.OutputUnits, row.State)
		}
	})
}

func TestReportOutputRefusesBadInput(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		n, task := placedTask(t, s)
		tests := map[string]struct {
			r     models.TaskReport
			field string
		}{
			"negative units": {models.TaskReport{State: models.ReportRunning, OutputUnits: -1}, "output_units"},
			"long unit":      {models.TaskReport{State: models.ReportRunning, OutputUnit: string(make([]byte, 51))}, "output_unit"},
		}
		for name, tc := range tests {
			t.Run(name, func(t *testing.T) {
				err := s.ReportTaskStatus(context.Background(), n.ID, task.ID, tc.r, t0)
				if fe, ok := errors.AsType[*models.FieldError](err); !ok || fe.Field != tc.field {
					t.Errorf("ReportTaskStatus = %v, want a field error on %s", err, tc.field)
				}
			})
		}
	})
}

func TestConfirmRunning(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		n, task := placedTask(t, s)
		if err := s.ConfirmRunning(ctx, n.ID, []int64{task.ID, 999}, t0.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		if row, _ := s.TaskByID(ctx, task.ID); row.State != models.TaskRunning {
			t.Errorf("task is %s after its node said it runs, want running", row.State)
		}
		if err := s.ConfirmRunning(ctx, n.ID, []int64{task.ID}, t0.Add(2*time.Minute)); err != nil {
			t.Errorf("a second confirmation = %v, want nil", err)
		}
	})
}
