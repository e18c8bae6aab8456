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
	benchDecideOf(b, genConfig{nodes: 512, perNode: 8, specs: genSpecs, pending: pending, busy: 0.5,
		bigTasks: true, quotas: true}, runtimes)
}

// benchDecideOf runs Decide on the snapshot c makes; "of-target" is the pass's time against
// its target (15 ms at 10k waiting, 150 ms at 100k: BENCHMARKS.md).
func benchDecideOf(b *testing.B, c genConfig, runtimes bool) {
	r := rand.New(rand.NewPCG(1, 2))
	pending := c.pending
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
	b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(decideTarget(pending)), "of-target")
}

// decideTarget is a scheduling pass's target at pending waiting tasks: 15 ms a 10,000.
func decideTarget(pending int) time.Duration {
	return time.Duration(pending) * 15 * time.Millisecond / 10_000
}

// mixedConfig is the benchmarks' fleet with genConfig.mixed's waiting set.
func mixedConfig(pending int) genConfig {
	return genConfig{nodes: 512, perNode: 8, specs: genSpecs, pending: pending, busy: 0.5, bigTasks: true, quotas: true, mixed: true}
}

// BenchmarkDecide10kMixed and BenchmarkDecide100kMixed are the passes with regions, data
// regions, network and storage asks, service replicas, reruns and pipelines' stages in the
// waiting set (genConfig.mixed).
func BenchmarkDecide10kMixed(b *testing.B)  { benchDecideOf(b, mixedConfig(10_000), true) }
func BenchmarkDecide100kMixed(b *testing.B) { benchDecideOf(b, mixedConfig(100_000), true) }

// BenchmarkTry10kMixed is one trial (where a task not yet submitted would stand: the task
// form's answer) on BenchmarkDecide10kMixed's snapshot: a pass with one more task.
func BenchmarkTry10kMixed(b *testing.B) {
	snap := genSnapshot(rand.New(rand.NewPCG(1, 2)), mixedConfig(10_000), t0)
	p := Pending{Project: "vision", Spec: genSpecs[0], GPUs: 4, Queue: "long", Priority: "normal", DataReady: true, MinInterNodeGbps: 100}
	pol := DefaultPolicy(nil)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		Try(snap, p, t0, pol)
	}
	b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(decideTarget(10_000)), "of-target")
}

func BenchmarkDecide10k(b *testing.B)  { benchDecide(b, 10_000, false) }
func BenchmarkDecide100k(b *testing.B) { benchDecide(b, 100_000, false) }

// BenchmarkDecide10kRuntimes is BenchmarkDecide10k where every project has 200 recent
// runtimes against estimates, which the ETAs read: scaled ends and their odds.
func BenchmarkDecide10kRuntimes(b *testing.B) { benchDecide(b, 10_000, true) }
