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

// The fairness's read of the allocations open since a time (once a minute) takes the open
// ones and the recently ended through their indexes: as one condition ordered by id, SQLite
// read every allocation ever made.
func TestAllocationsSinceReadThroughIndexes(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		plan, err := models.Explain(context.Background(), s, models.AllocationsSinceSQL(), t0)
		if err != nil {
			t.Fatal(err)
		}
		if readsEveryAllocation(plan) {
			t.Fatalf("the allocations since a time are read one by one; the plan:\n%s", strings.Join(plan, "\n"))
		}
	})
}

// readsEveryAllocation is whether a plan reads the allocations one by one: a scan of the
// table (on SQLite, other than of a partial index of the open ones, which holds them alone).
func readsEveryAllocation(plan []string) bool {
	for _, line := range plan {
		if (strings.Contains(line, "SCAN allocations") && !strings.Contains(line, "_open")) ||
			strings.Contains(line, "Seq Scan on allocations") {
			return true
		}
	}
	return false
}
