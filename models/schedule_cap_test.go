package models_test

import (
	"context"
	"errors"
	"testing"

	"kashi/models"
	"kashi/models/modelstest"
)

// TestSchedulesPerProjectBounded: a project has at most MaxSchedulesPerProject schedules;
// the next is a field error.
func TestSchedulesPerProjectBounded(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		modelstest.Node("n1").Pool("a100").A100s(4).Register(t, s, t0)
		p, _ := s.EnsureProject(ctx, "vision", t0)
		tpl, err := s.CreateTemplate(ctx, models.NewTemplate{ProjectID: p.ID, Name: "nightly", Body: models.TemplateBody{
			GPUs: 1, Queue: models.QueueLong, Priority: models.PriorityNormal, Command: []string{"train"}}}, "lee", models.DefaultTaskLimits, t0)
		if err != nil {
			t.Fatal(err)
		}
		ts := models.TaskSchedule{TemplateID: tpl.ID, Cron: "0 22 * * *", TimeZone: "UTC", Overlap: "skip", StartDeadlineS: 3600, Owner: "lee"}
		for range models.MaxSchedulesPerProject {
			if _, err := s.CreateSchedule(ctx, ts, t0); err != nil {
				t.Fatal(err)
			}
		}
		var fe *models.FieldError
		if _, err := s.CreateSchedule(ctx, ts, t0); !errors.As(err, &fe) || fe.Field != "template" {
			t.Errorf("schedule %d = %v, want a field error", models.MaxSchedulesPerProject+1, err)
		}
	})
}
