package models_test

import (
	"context"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

// The demo's clock continues from LastStamp on a database it used before. A node's last
// report lags the clock (agents report every few seconds), so a crash leaves later times in
// the ledger than in the nodes: the clock must continue from those, or a card freed at 10:20
// would be given again at 10:10 (found by the crash proof).
func TestLastStampIsTheLatestWrittenTime(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		if last, err := s.LastStamp(ctx); err != nil || !last.IsZero() {
			t.Fatalf("LastStamp of an empty database = %v, %v; want zero", last, err)
		}
		n := registerNode(t, s, "n1", "a100", 1)
		s.EnsureProject(ctx, "vision", t0)
		s.IngestSamples(ctx, n.ID, []models.Reading{sample("n1-gpu0", t0.Add(10*time.Minute), 90, 1)}, t0.Add(10*time.Minute))
		if last, err := s.LastStamp(ctx); err != nil || !last.Equal(t0.Add(10*time.Minute)) {
			t.Errorf("LastStamp = %v, %v; want the node's last report %v", last, err, t0.Add(10*time.Minute))
		}
		task, _, _ := s.CreateTask(ctx, newTask("t", 1), models.DefaultTaskLimits, t0)
		nodes, _ := s.Nodes(ctx)
		s.PlaceTask(ctx, task.ID, []int64{nodes[0].GPUs[0].ID}, false, "placed", t0.Add(15*time.Minute))
		ended := t0.Add(20 * time.Minute)
		if err := s.ReportTaskStatus(ctx, n.ID, task.ID, models.TaskReport{State: models.ReportExited, TS: ended}, ended); err != nil {
			t.Fatal(err)
		}
		if last, err := s.LastStamp(ctx); err != nil || !last.Equal(ended) {
			t.Errorf("LastStamp = %v, %v; want the task's end %v, after the node's last report", last, err, ended)
		}
	})
}
