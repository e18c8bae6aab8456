package models_test

import (
	"context"
	"strings"
	"testing"

	"kashi/models"
	"kashi/models/modelstest"
)

// Every scheduling pass reads the open allocations through a partial index of the open ones:
// ordered by task as the index of the tasks' allocations is, SQLite read every allocation
// ever made through that index instead, a cost that grew with the deployment's history.
func TestOpenAllocationsReadThroughTheOpenIndex(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		plan, err := models.Explain(context.Background(), s, models.OpenAllocationsSQL())
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Join(plan, "\n")
		if !strings.Contains(text, "_open") || strings.Contains(text, "idx_allocations_task_id") {
			t.Fatalf("the open allocations are not read through a partial index of the open ones; the plan:\n%s", text)
		}
	})
}
