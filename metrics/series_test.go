package metrics

import (
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"kashi/models"
	"kashi/scheduler"
)

// TestSeriesDoNotGrowWithGPUs: /metrics has as many series for 4,096 GPUs as for 64 on the
// same pools, projects and states: cards are counted by pool, spec and state, never one
// series a card (each card's readings are on the board and GET /api/v1/gpus).
func TestSeriesDoNotGrowWithGPUs(t *testing.T) {
	series := func(gpus int) int {
		store := &fakeStore{pools: []models.ConfiguredPool{{Pool: models.Pool{ID: 1, Name: "a100", Spec: "A100"}}, {Pool: models.Pool{ID: 2, Name: "h100", Spec: "H100"}}}}
		for i := range gpus {
			pool, project := []string{"a100", "h100"}[i%2], []string{"", "nlp", "cv"}[i%3]
			g := gpu(pool, project, time.Duration(i%4)*time.Minute, time.Duration(i%5)*10*time.Minute)
			g.ID, g.NodeID, g.UUID, g.Hostname = int64(i+1), int64(i/8+1), fmt.Sprintf("GPU-%d", i), fmt.Sprintf("node-%d", i/8)
			store.rows = append(store.rows, g)
		}
		queue := queueWith(map[string]scheduler.Use{"nlp": {Total: gpus / 3, BySpec: map[string]int{"A100": gpus / 3}}},
			scheduler.QueueEntry{Waiting: scheduler.Waiting{Lane: models.QueueShort}})
		return testutil.CollectAndCount(New(store, queue, Config{Marks: marks, Now: func() time.Time { return t0 }}))
	}
	small, large := series(64), series(4096)
	if small != large {
		t.Errorf("series for 64 GPUs = %d, for 4,096 = %d; want the same", small, large)
	}
}
