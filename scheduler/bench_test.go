package scheduler

import (
	"math/rand/v2"
	"testing"
	"time"
)

// benchDecide runs Decide on 512 nodes × 8 cards (4,096 GPUs) of three specs, half held by
// running tasks, with pending queued tasks of every kind; with runtimes, each project's
// tasks ran 0.7 to 1.4 times their estimates.
func benchDecide(b *testing.B, pending int, runtimes bool) {
	r := rand.New(rand.NewPCG(1, 2))
	c := genConfig{nodes: 512, perNode: 8, specs: genSpecs, pending: pending, busy: 0.5,
		bigTasks: true, quotas: true}
	snap := genSnapshot(r, c, t0)
	if runtimes {
		var samples []RuntimeSample
		for _, p := range []string{"vision", "speech", "llm", "infra", "rec"} {
			for range 200 {
				samples = append(samples, RuntimeSample{Project: p, Est: time.Hour,
					Ran: time.Duration((0.7 + 0.7*r.Float64()) * float64(time.Hour))})
			}
		}
		snap.Runtimes = NewRuntimes(samples)
	}
	pol := DefaultPolicy(nil)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		Decide(snap, t0, pol)
	}
	b.ReportMetric(float64(pending), "tasks/op")
}

func BenchmarkDecide10k(b *testing.B)  { benchDecide(b, 10_000, false) }
func BenchmarkDecide100k(b *testing.B) { benchDecide(b, 100_000, false) }

// BenchmarkDecide10kRuntimes is BenchmarkDecide10k where every project has 200 recent
// runtimes against estimates, which the ETAs read: scaled ends and their odds.
func BenchmarkDecide10kRuntimes(b *testing.B) { benchDecide(b, 10_000, true) }
