package pilot

import (
	"context"
	"testing"
	"time"

	"kashi/billing"
)

// TestChangeMidMonthReconciles is the scenario in the demo's past: an admin capped the A100
// pool at 8 machines (from 12) on 15 February. Its before/after covers 1–15 and 15 February–1
// March, which together are the month: the two periods' held and effective card time add up
// to the issued February bills' lines of the spec, their provisioned card time to the month's
// pool idle, and their costs to the month's within a fen of rounding; the counterfactual
// replays every task of the period after under both settings.
func TestChangeMidMonthReconciles(t *testing.T) {
	ctx := context.Background()
	s := demoPast(t)
	loc, err := billing.Location(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	cps, err := s.ConfiguredPools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var cfg = cps[0].Config
	for _, p := range cps {
		if p.Name == "a100" {
			cfg = p.Config
		}
	}
	cfg.MaxNodes = 8
	at := time.Date(2026, 2, 15, 0, 0, 0, 0, loc)
	saved, err := s.SavePoolConfig(ctx, "a100", cfg, "admin", "at most 8 machines", at)
	if err != nil {
		t.Fatal(err)
	}
	in, err := LoadChange(ctx, s, "a100", saved.Version, demoStart)
	if err != nil {
		t.Fatal(err)
	}
	c, err := ComputeChange(in)
	if err != nil {
		t.Fatal(err)
	}
	feb, mar := time.Date(2026, 2, 1, 0, 0, 0, 0, loc), time.Date(2026, 3, 1, 0, 0, 0, 0, loc)
	if !c.Ready || !c.From.Equal(feb) || !c.To.Equal(mar) {
		t.Fatalf("change: ready %v, %s – %s; want February around 15 February", c.Ready, c.From, c.To)
	}

	issued, err := s.IssuedBills(ctx, "2026-02")
	if err != nil {
		t.Fatal(err)
	}
	var held, effective int64
	for _, ib := range issued {
		b, err := billing.Frozen(ib)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range b.Lines {
			if l.Spec == in.After.Pool.Spec {
				held += l.NominalS
				effective += l.EffectiveS
			}
		}
	}
	if got := c.Before.HeldS + c.After.HeldS; got != held || held == 0 {
		t.Errorf("held before + after = %d + %d = %d s, the February bills' %s lines %d s", c.Before.HeldS, c.After.HeldS, got, in.After.Pool.Spec, held)
	}
	if got := c.Before.EffectiveS + c.After.EffectiveS; got != effective {
		t.Errorf("effective before + after = %d s, the February bills' %d s", got, effective)
	}
	bin, err := billing.Load(ctx, s, billing.Request{Month: billing.MonthOf(feb, loc), AsOf: demoStart})
	if err != nil {
		t.Fatal(err)
	}
	month, err := billing.Compute(bin)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range month.PoolIdle {
		if p.Pool != "a100" {
			continue
		}
		if got := c.Before.ProvisionedS + c.After.ProvisionedS; got != p.ProvisionedS {
			t.Errorf("provisioned before + after = %d s, the month's pool idle %d s", got, p.ProvisionedS)
		}
		fen := billing.Amount(p.ProvisionedS, c.After.Cost.RateFen)
		if got := c.Before.Cost.ElasticFen + c.After.Cost.ElasticFen; got < fen-1 || got > fen+1 {
			t.Errorf("cost before + after = %d fen, the month's %d", got, fen)
		}
	}
	if c.Counter.Tasks != c.After.Tasks || c.Counter.OldFen <= 0 || c.Counter.NewFen <= 0 || c.Counter.SavedFen != c.Counter.OldFen-c.Counter.NewFen {
		t.Errorf("counterfactual %+v over %d tasks after", c.Counter, c.After.Tasks)
	}
	// Fewer machines cost less and the same tasks wait longer.
	if c.Counter.SavedFen <= 0 || c.Counter.NewMeanWaitS <= c.Counter.OldMeanWaitS {
		t.Errorf("capping the pool at 8 machines: %+v; want it to save money and wait longer", c.Counter)
	}
	t.Logf("counter %+v idle %+.1f%%", c.Counter, c.Counter.IdlePct())
}
