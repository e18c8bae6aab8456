package pilot

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"kashi/billing"
	"kashi/models"
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
	in, err := LoadChange(ctx, s, PoolRef("a100", saved.Version), demoStart)
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

	held, effective := issuedCardTime(t, s, "2026-02", 0, in.After.Pool.Spec)
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
	cachedOnce(t, s, saved.Version, c)
}

// gatedSource counts the period loads (one TaskSpans each) and holds each until gate closes.
type gatedSource struct {
	*models.Store
	gate  chan struct{}
	loads atomic.Int32
}

func (g *gatedSource) TaskSpans(ctx context.Context, since, until time.Time) ([]models.TaskSpan, error) {
	g.loads.Add(1)
	<-g.gate
	return g.Store.TaskSpans(ctx, since, until)
}

// cachedOnce: a ChangeCache asked for the change while it is measured says who made it and
// that it is not measured yet, measures it once however often it is asked, gives the same
// measure as MeasureChange (want), and later, within the same periods, answers from memory
// without reading the store's periods again.
func cachedOnce(t *testing.T, s *models.Store, version int, want Change) {
	ctx := context.Background()
	cc := NewChangeCache(2)
	src := &gatedSource{Store: s, gate: make(chan struct{})}
	head, ok, err := cc.Peek(ctx, src, PoolRef("a100", version), demoStart)
	if err != nil || ok || head.By != "admin" || head.Note != "at most 8 machines" || head.Ready || head.Old.MaxNodes == head.New.MaxNodes {
		t.Fatalf("Peek while measuring = %+v, %v, %v; want the change unmeasured, false", head, ok, err)
	}
	if _, ok, err := cc.Peek(ctx, src, PoolRef("a100", version), demoStart.Add(time.Minute)); ok || err != nil {
		t.Fatalf("Peek again while measuring = %v, %v; want false", ok, err)
	}
	close(src.gate)
	got, err := cc.Measure(ctx, src, PoolRef("a100", version), demoStart)
	if err != nil || !got.Ready || got.Counter != want.Counter || got.Before.Cost != want.Before.Cost || got.After.Cost != want.After.Cost {
		t.Fatalf("Measure = %+v, %v; want %+v", got.Counter, err, want.Counter)
	}
	if n := src.loads.Load(); n != 2 {
		t.Errorf("asked three times, the cache loaded %d periods, want 2 (one measure)", n)
	}
	later, ok, err := cc.Peek(ctx, src, PoolRef("a100", version), demoStart.Add(2*time.Hour))
	if err != nil || !ok || later.Counter != want.Counter || src.loads.Load() != 2 {
		t.Errorf("Peek two hours later = %v, %v, %d loads; want the kept measure", ok, err, src.loads.Load())
	}
}
