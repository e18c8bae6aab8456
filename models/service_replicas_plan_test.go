package models_test

import (
	"context"
	"strings"
	"testing"

	"kashi/models"
	"kashi/models/modelstest"
)

// The services' list, read every minute, finds the service replicas through the partial
// index of the tasks' service: SQLite read the whole table of tasks in id order, a cost that
// grew with every task the deployment ever ran.
func TestServiceReplicasReadThroughTheirIndex(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		plan, err := models.Explain(context.Background(), s, models.ServiceReplicasSinceSQL, models.TaskKindService, t0)
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Join(plan, "\n")
		if !strings.Contains(text, "idx_tasks_service_id") || strings.Contains(text, "SCAN tasks") {
			t.Fatalf("the service replicas are not read through their index; the plan:\n%s", text)
		}
	})
}
