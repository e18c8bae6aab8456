package models_test

import (
	"context"
	"strings"
	"testing"

	"kashi/models"
	"kashi/models/modelstest"
)

// The scheduler reads the last week's ended tasks every ten minutes (the ETAs' runtimes):
// without an index of the submit time it read every task ever submitted, a cost that grew
// with the deployment's history.
func TestTaskSpansReadThroughTheSubmitIndex(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		plan, err := models.Explain(context.Background(), s, models.TaskSpansSQL, t0, t0, 10)
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Join(plan, "\n")
		if !strings.Contains(text, "idx_tasks_submitted") {
			t.Fatalf("the tasks of a window are not read through the index of their submit time; the plan:\n%s", text)
		}
	})
}
