package models_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/models"
	"kashi/models/modelstest"
)

// TestTaskSpans: a task that ran and ended reads back as a trace line with every field
// (its GPUs and spec among them); one still running and one submitted before the range do
// not.
func TestTaskSpans(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		n := modelstest.Node("n1").Pool("a100").A100s(8).Register(t, s, t0)
		early := modelstest.Task("vision", "early").Create(t, s, t0.Add(-2*time.Hour))
		ran := modelstest.Task("vision", "train").GPUs(4).Spec("A100-80G").Create(t, s, t0)
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
			StartedAt: t0.Add(2 * time.Minute), EndedAt: t0.Add(time.Hour)}}
		if diff := cmp.Diff(want, spans); diff != "" {
			t.Errorf("TaskSpans (-want +got):\n%s", diff)
		}
		for _, sp := range spans {
			everyFieldSet(t, "TaskSpan", sp)
		}
	})
}

// everyFieldSet fails the test for each field of the struct v (embedded structs' fields
// included) that holds its zero value: a read model scanned from a row with every column set
// has none, unless a field's name does not match its column and the scan left it out.
func everyFieldSet(t *testing.T, what string, v any) {
	t.Helper()
	rv := reflect.ValueOf(v)
	for i := range rv.NumField() {
		f, fv := rv.Type().Field(i), rv.Field(i)
		switch {
		case !f.IsExported():
		case f.Anonymous && fv.Kind() == reflect.Struct:
			everyFieldSet(t, what+"."+f.Name, fv.Interface())
		case fv.IsZero():
			t.Errorf("%s.%s reads back zero: no column is scanned into it, or the fixture left it unset", what, f.Name)
		}
	}
}
