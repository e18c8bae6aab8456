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

// TestPriceChangeReconciles: the demo's A100 list price rises by ¥5 a card-hour from
// February, before the month is filled and issued. Its change compares February (as far as
// it ran: the whole month by the demo's start) with January, and both sides are the sums of
// the issued bills' A100 lines of the projects the list prices; February billed again at
// January's rates costs less by ¥5 for every card-hour billed at the list's rates.
func TestPriceChangeReconciles(t *testing.T) {
	ctx := context.Background()
	s := modelstest.SQLite(t, models.Options{})
	if _, _, err := demo.Seed(ctx, s, demoStart); err != nil {
		t.Fatal(err)
	}
	const spec = "A100-80G"
	jan, err := s.Prices(ctx, "2026-01")
	if err != nil {
		t.Fatal(err)
	}
	var old models.Price
	for _, p := range jan {
		if p.ProjectID == 0 && p.Spec == spec {
			old = p
		}
	}
	if old.RateFen == 0 {
		t.Fatalf("the demo has no list price of %s in January: %+v", spec, jan)
	}
	feb := models.Price{Spec: spec, FromMonth: "2026-02", RateFen: old.RateFen + 500, OverflowRateFen: old.OverflowRateFen + 500}
	if err := s.SetPrice(ctx, feb, demoStart); err != nil {
		t.Fatal(err)
	}
	if _, err := demo.FillHistory(ctx, s, demoStart, 1); err != nil {
		t.Fatal(err)
	}
	hist, err := s.PriceHistory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range hist {
		if p.ProjectID == 0 && p.Spec == spec && p.FromMonth == "2026-01" {
			if _, err := MeasureChange(ctx, s, PriceRef(p.ID), demoStart); err != ErrNoChange {
				t.Errorf("the spec's first price measured: %v, want ErrNoChange", err)
			}
		}
		if p.ProjectID == 0 && p.Spec == spec && p.FromMonth == "2026-02" {
			feb.ID = p.ID
		}
	}
	c, err := MeasureChange(ctx, s, PriceRef(feb.ID), demoStart)
	if err != nil {
		t.Fatal(err)
	}
	loc, err := billing.Location(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	at, mar := time.Date(2026, 2, 1, 0, 0, 0, 0, loc), time.Date(2026, 3, 1, 0, 0, 0, 0, loc)
	if !c.Ready || !c.At.Equal(at) || !c.To.Equal(mar) || !c.From.Equal(time.Date(2026, 1, 1, 0, 0, 0, 0, loc)) {
		t.Fatalf("price change: ready %v, %s – %s – %s; want January against February", c.Ready, c.From, c.At, c.To)
	}
	if c.Price.OldRateFen != old.RateFen || c.Price.NewRateFen != feb.RateFen || c.Price.Spec != spec || c.Price.Project != "" {
		t.Errorf("rates %+v, want %d → %d of the list", c.Price, old.RateFen, feb.RateFen)
	}

	issued, err := s.IssuedBills(ctx, "2026-02")
	if err != nil {
		t.Fatal(err)
	}
	own, err := s.Prices(ctx, "2026-02")
	if err != nil {
		t.Fatal(err)
	}
	ownPrice := map[int64]bool{}
	for _, p := range own {
		if p.ProjectID != 0 && p.Spec == spec {
			ownPrice[p.ProjectID] = true
		}
	}
	var fen, held, effective, idle, rise, lines int64
	for _, ib := range issued {
		b, err := billing.Frozen(ib)
		if err != nil {
			t.Fatal(err)
		}
		if ownPrice[b.ProjectID] {
			continue
		}
		for _, l := range b.Lines {
			if l.Spec != spec {
				continue
			}
			fen, held, effective, idle = fen+l.AmountFen, held+l.NominalS, effective+l.EffectiveS, idle+l.Idle
			if l.RateFen == feb.RateFen || l.RateFen == feb.OverflowRateFen {
				rise, lines = rise+billing.Amount(l.NominalS, 500), lines+1
			}
		}
	}
	if held == 0 || c.After.Cost.ElasticFen != fen || c.After.HeldS != held || c.After.EffectiveS != effective || c.After.IdleS != idle {
		t.Errorf("after: %d fen, held %d s, effective %d s, idle %d s; the issued February bills' %s lines %d fen, %d s, %d s, %d s",
			c.After.Cost.ElasticFen, c.After.HeldS, c.After.EffectiveS, c.After.IdleS, spec, fen, held, effective, idle)
	}
	if c.Before.HeldS != 0 || c.Before.Cost.ElasticFen != 0 {
		t.Errorf("before: January held %d s for %d fen; the demo's past has no January", c.Before.HeldS, c.Before.Cost.ElasticFen)
	}
	cf := c.Counter
	if cf.NewFen != fen || cf.SavedFen != cf.OldFen-cf.NewFen || rise == 0 {
		t.Errorf("repriced %+v; want the new side the bills' %d fen", cf, fen)
	}
	// Each line rounds to the fen on its own.
	if got := cf.NewFen - cf.OldFen; got < rise-lines || got > rise+lines {
		t.Errorf("February at the new rates costs %d fen more than at the old, want about %d", got, rise)
	}
	t.Logf("repriced %+v, rise %d", cf, rise)
}
