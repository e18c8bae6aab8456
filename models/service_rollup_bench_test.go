package models_test

import (
	"context"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
	"kashi/serving"
)

// BenchmarkAddServiceReports measures what one sample tick of a node running eight service
// replicas costs the server: eight scrapes, each with vLLM's TTFT (16 bounds) and e2e (15
// bounds) histograms, added into the service's 5-minute rollup, on SQLite.
func BenchmarkAddServiceReports(b *testing.B) {
	ctx := context.Background()
	s := modelstest.SQLite(b, models.Options{})
	n := registerNodeB(b, s, "bench-1", 8)
	if _, err := s.EnsureProject(ctx, "vision", t0); err != nil {
		b.Fatal(err)
	}
	nt := newService(8)
	first, _, err := s.CreateTask(ctx, nt, models.DefaultTaskLimits, t0)
	if err != nil {
		b.Fatal(err)
	}
	nodes, _ := s.Nodes(ctx)
	for i, g := range nodes[0].GPUs {
		if err := s.PlaceTask(ctx, first.ID+int64(i), []int64{g.ID}, false, "placed", t0); err != nil {
			b.Fatal(err)
		}
	}
	ttftBounds := []float64{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10}
	e2eBounds := []float64{0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60}
	counts := func(n int) []uint64 {
		out := make([]uint64, n+1)
		for i := range out {
			out[i] = uint64(3 * (i + 1))
		}
		return out
	}
	ttft, _ := serving.NewHistogram(ttftBounds, counts(len(ttftBounds)), 12)
	e2e, _ := serving.NewHistogram(e2eBounds, counts(len(e2eBounds)), 300)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		at := t0.Add(time.Duration(i+1) * 10 * time.Second)
		reports := make([]models.ServiceReport, 8)
		for r := range reports {
			reports[r] = models.ServiceReport{TaskID: first.ID + int64(r), TS: at, Served: serving.Snapshot{Server: serving.VLLM,
				Model: "qwen", Requests: 48, GenerationTokens: 9600, TTFT: ttft, E2E: e2e}}
		}
		if err := s.AddServiceReports(ctx, n.ID, reports, at); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*8)/b.Elapsed().Seconds(), "reports/s")
}
