package models_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/models"
	"kashi/models/modelstest"
)

// TestTaskSpans: a task that ran and ended reads back as a trace line with every field
// (its GPUs, spec and what it declared among them); one still running and one submitted
// before the range do not.
func TestTaskSpans(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		n := modelstest.Node("n1").Pool("a100").A100s(8).Register(t, s, t0)
		early := modelstest.Task("vision", "early").Create(t, s, t0.Add(-2*time.Hour))
		ran := modelstest.Task("vision", "train").GPUs(4).Spec("A100-80G").Estimate(6, 3*time.Hour).Create(t, s, t0)
		running := modelstest.Task("nlp", "sft").GPUs(2).Create(t, s, t0.Add(time.Minute))
		modelstest.Run(t, s, early, n, t0.Add(-time.Hour))
		modelstest.Run(t, s, ran, n, t0.Add(2*time.Minute))
		modelstest.Run(t, s, running, n, t0.Add(3*time.Minute))
		for _, tk := range []models.Task{early, ran} {
			end := t0.Add(time.Hour)
			if err := s.ReportTaskStatus(ctx, n.ID, tk.ID, models.TaskReport{State: models.ReportExited, TS: end}, end); err != nil {
				t.Fatal(err)
			}
		}
		spans, err := s.TaskSpans(ctx, t0.Add(-time.Hour), t0.Add(24*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		want := []models.TaskSpan{{ID: ran.ID, Project: "vision", Spec: "A100-80G", GPUs: 4, SubmittedAt: t0,
			StartedAt: t0.Add(2 * time.Minute), EndedAt: t0.Add(time.Hour), EstGPUHours: 6, MaxRuntimeS: 3 * 3600,
			Queue: models.QueueLong, Priority: models.PriorityNormal, State: models.TaskSucceeded}}
		if diff := cmp.Diff(want, spans); diff != "" {
			t.Errorf("TaskSpans (-want +got):\n%s", diff)
		}
		for _, sp := range spans {
			everyFieldSet(t, "TaskSpan", sp)
		}
	})
}
