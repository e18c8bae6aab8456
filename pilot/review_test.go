package pilot

import (
	"context"
	"testing"
	"time"

	"kashi/billing"
	"kashi/demo"
	"kashi/models"
	"kashi/models/modelstest"
)

// demoStart is the demo's start: 08:30 in Shanghai on 4 March 2026; its past is February.
var demoStart = time.Date(2026, 3, 4, 0, 30, 0, 0, time.UTC)

// demoPast is a demo store with its past month filled and issued.
func demoPast(t testing.TB) *models.Store {
	t.Helper()
	if _, bench := t.(*testing.B); bench && testing.Short() {
		// CI's smoke run of every benchmark: the month takes half a minute to build for each
		// benchmark, and the tests of this package read the same month.
		t.Skip("the demo's past month is built only without -short")
	}
	return fillDemo(t, modelstest.SQLite(t, models.Options{}))
}

// fillDemo seeds the demo into s and fills its past month.
func fillDemo(t testing.TB, s *models.Store) *models.Store {
	t.Helper()
	ctx := context.Background()
	if _, _, err := demo.Seed(ctx, s, demoStart); err != nil {
		t.Fatal(err)
	}
	if _, err := demo.FillHistory(ctx, s, demoStart, 1); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestDemoMonthReadsTheBills: the review of each demo pool over its past month answers
// every question, with the scaling loop's recorded reasons (the past's events), and its provisioned, held and unheld card time are the month's pool idle
// as billing computes it for the bills, to the second.
func TestDemoMonthReadsTheBills(t *testing.T) {
	ctx := context.Background()
	s := demoPast(t)
	loc, err := billing.Location(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	from := time.Date(2026, 2, 1, 0, 0, 0, 0, loc)
	in, err := billing.Load(ctx, s, billing.Request{Month: billing.MonthOf(from, loc), AsOf: demoStart})
	if err != nil {
		t.Fatal(err)
	}
	month, err := billing.Compute(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, pool := range []string{"a100", "rtx4090"} {
		in, err := Load(ctx, s, pool, "", from, from.AddDate(0, 1, 0), demoStart)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Compute(in)
		if err != nil {
			t.Fatal(err)
		}
		var pi billing.PoolIdle
		for _, p := range month.PoolIdle {
			if p.Pool == pool {
				pi = p
			}
		}
		if r.ProvisionedS != pi.ProvisionedS || r.HeldS != pi.HeldS || r.UnheldS != pi.IdleS+pi.UnmanagedS || r.ProvisionedS == 0 {
			t.Errorf("%s: review provisioned %d held %d unheld %d; bills' pool idle %+v", pool, r.ProvisionedS, r.HeldS, r.UnheldS, pi)
		}
		if len(r.Verdicts) != 4 || r.Tasks < 500 || r.PeakNodes == 0 || r.Cost.ReplayedTasks != r.Tasks || r.Cost.FixedFen <= 0 {
			t.Errorf("%s: review %d verdicts, %d tasks, %d peak nodes, cost %+v; want 4 verdicts of a month's work", pool, len(r.Verdicts), r.Tasks, r.PeakNodes, r.Cost)
		}
		reasons := 0
		for _, p := range r.Peaks {
			reasons += len(p.Reasons)
		}
		if pool == "a100" && reasons == 0 {
			t.Errorf("%s: no peak has the scaling loop's recorded reasons", pool)
		}
		if want := billing.Amount(r.ProvisionedS, r.Cost.RateFen); r.Cost.ElasticFen != want {
			t.Errorf("%s: elastic cost %d fen, want the provisioned card time at the price, %d", pool, r.Cost.ElasticFen, want)
		}
	}
}
