package pilot

import (
	"context"
	"testing"
	"time"

	"kashi/billing"
	"kashi/models"
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

// demoPoolChange is the demo's past with its own pool change (the RTX 4090 pool keeping
// fewer machines and releasing unneeded ones sooner from 15 February): the store, the pool and the change's version.
func demoPoolChange(t testing.TB) (*models.Store, string, int) {
	t.Helper()
	s := demoPast(t)
	return s, "rtx4090", latestVersion(t, s, "rtx4090").Version
}

// latestVersion is pool's latest settings version.
func latestVersion(t testing.TB, s *models.Store, pool string) models.PoolPolicyVersion {
	t.Helper()
	vs, err := s.PoolConfigVersions(context.Background(), pool)
	if err != nil || len(vs) == 0 {
		t.Fatalf("PoolConfigVersions(%s) = %v, %v", pool, vs, err)
	}
	return vs[0]
}

// BenchmarkDemoChange measures the pool change in the demo's past (the RTX 4090 pool
// keeping 3 machines, not 4, and releasing unneeded ones after 10 minutes, not 2 hours,
// from 15 February): two weeks
// before and after from the store, and the two weeks after replayed under both settings.
func BenchmarkDemoChange(b *testing.B) {
	ctx := context.Background()
	s, pool, version := demoPoolChange(b)
	b.ResetTimer()
	for range b.N {
		in, err := LoadChange(ctx, s, PoolRef(pool, version), demoStart)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ComputeChange(in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDemoChangeCached measures the same change answered from a ChangeCache once it is
// measured: what the change page costs a request after the first.
func BenchmarkDemoChangeCached(b *testing.B) {
	ctx := context.Background()
	s, pool, version := demoPoolChange(b)
	cc := NewChangeCache(KeptChanges)
	if _, err := cc.Measure(ctx, s, PoolRef(pool, version), demoStart); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if _, ok, err := cc.Peek(ctx, s, PoolRef(pool, version), demoStart); err != nil || !ok {
			b.Fatalf("Peek = %v, %v; want the kept measure", ok, err)
		}
	}
}

// BenchmarkDemoReclaimChange measures the demo's idle-reclaim change (vision's, on 15
// February): two weeks before and after on every pool from the store, and the two weeks
// after re-evaluated under both overrides.
func BenchmarkDemoReclaimChange(b *testing.B) {
	ctx := context.Background()
	s := demoPast(b)
	vision, err := s.ProjectByName(ctx, "vision")
	if err != nil {
		b.Fatal(err)
	}
	es, err := s.ReclaimEdits(ctx, vision.ID, time.Time{}, time.Time{})
	if err != nil || len(es) != 1 {
		b.Fatalf("vision's reclaim changes = %v, %v", es, err)
	}
	b.ResetTimer()
	for range b.N {
		if _, err := MeasureChange(ctx, s, ReclaimRef(vision.ID, es[0].ID), demoStart); err != nil {
			b.Fatal(err)
		}
	}
}
