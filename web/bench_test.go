package web_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"testing"

	"kashi/models"
	"kashi/scheduler"
	"kashi/web/webtest"
)

// BenchmarkSubmitToPlaced measures the path from POST /api/v1/tasks to a committed placement on
// SQLite: tasks (data ready, 1 GPU) go in through the router, and the real scheduler tick runs
// after every 100 submits, on a fleet of 64 nodes × 8 GPUs registered through the agent API. A
// task counts once the store holds it placed. Between ticks, with the timer stopped, the
// placed tasks exit through the store so the fleet never fills up.
func BenchmarkSubmitToPlaced(b *testing.B) {
	const nodes, perNode, batch = 64, 8, 100
	s := webtest.NewServer(b)
	for i := range nodes {
		s.Register(webtest.Node(fmt.Sprintf("gpu-%02d", i)).InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, perNode))
	}
	s.Projects("vision")
	ctx := context.Background()
	loop := scheduler.NewLoop(s.Store, scheduler.LoopConfig{Policy: scheduler.DefaultPolicy(nil), Now: s.Clock,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	body := webtest.TaskBody(nil)

	placed, pending := 0, 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if w := s.Post("/api/v1/tasks", body); w.Code != http.StatusCreated {
			b.Fatalf("POST /api/v1/tasks = %d %s, want 201", w.Code, w.Body)
		}
		pending++
		if pending < batch && i < b.N-1 {
			continue
		}
		if _, err := loop.RunOnce(ctx, webtest.T0); err != nil {
			b.Fatalf("RunOnce: %v", err)
		}
		b.StopTimer()
		placed += finishPlaced(b, s)
		pending = 0
		b.StartTimer()
	}
	b.StopTimer()
	if placed != b.N {
		b.Fatalf("placed %d of %d tasks", placed, b.N)
	}
	b.ReportMetric(float64(placed)/b.Elapsed().Seconds(), "tasks/s")
}

// finishPlaced ends every task placed so far (its process exits 0) and returns how many there were.
func finishPlaced(b *testing.B, s *webtest.Server) int {
	ctx := context.Background()
	active, err := s.Store.ActiveTasks(ctx)
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for _, t := range active {
		if t.State != models.TaskStarting {
			continue
		}
		n++
		err := s.Store.ReportTaskStatus(ctx, *t.NodeID, t.ID, models.TaskReport{State: models.ReportExited}, webtest.T0)
		if err != nil {
			b.Fatalf("ReportTaskStatus(%d): %v", t.ID, err)
		}
	}
	return n
}
