package scheduler

import (
	"math/rand/v2"
	"testing"
)

// benchDecide runs Decide on 512 nodes × 8 cards (4,096 GPUs) of three specs, half held by
// running tasks, with pending queued tasks of every kind.
func benchDecide(b *testing.B, pending int) {
	r := rand.New(rand.NewPCG(1, 2))
	c := genConfig{nodes: 512, perNode: 8, specs: genSpecs, pending: pending, busy: 0.5,
		bigTasks: true, quotas: true}
	snap := genSnapshot(r, c, t0)
	pol := DefaultPolicy(nil)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		Decide(snap, t0, pol)
	}
	b.ReportMetric(float64(pending), "tasks/op")
}

func BenchmarkDecide10k(b *testing.B)  { benchDecide(b, 10_000) }
func BenchmarkDecide100k(b *testing.B) { benchDecide(b, 100_000) }
