package pilot

import (
	"context"
	"testing"
	"time"

	"kashi/billing"
)

// BenchmarkDemoMonthFixedFleet is the review's replay-based comparison over the demo's past
// month of its A100 pool: the month's tasks replayed on a fixed fleet of its peak machines
// (the target is under 5 s).
func BenchmarkDemoMonthFixedFleet(b *testing.B) {
	ctx := context.Background()
	s := demoPast(b)
	loc, err := billing.Location(ctx, s)
	if err != nil {
		b.Fatal(err)
	}
	from := time.Date(2026, 2, 1, 0, 0, 0, 0, loc)
	in, err := Load(ctx, s, "a100", "", from, from.AddDate(0, 1, 0), demoStart)
	if err != nil {
		b.Fatal(err)
	}
	cfg := in.Pool.Config.WithDefaults()
	b.ResetTimer()
	var n int
	for range b.N {
		_, n, err = ReplayFixed(in.Tasks, in.From, in.To, in.Pool.Name, in.Pool.Spec, cfg.GPUsPerNode, 12, in.RateFen)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n), "tasks")
}

// BenchmarkDemoMonthReview is the whole review of the demo's A100 pool over its past month,
// from the store: billing's window, the peaks and troughs, and the replay.
func BenchmarkDemoMonthReview(b *testing.B) {
	ctx := context.Background()
	s := demoPast(b)
	loc, err := billing.Location(ctx, s)
	if err != nil {
		b.Fatal(err)
	}
	from := time.Date(2026, 2, 1, 0, 0, 0, 0, loc)
	b.ResetTimer()
	for range b.N {
		in, err := Load(ctx, s, "a100", "", from, from.AddDate(0, 1, 0), demoStart)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Compute(in); err != nil {
			b.Fatal(err)
		}
	}
}
