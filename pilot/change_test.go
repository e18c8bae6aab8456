package pilot

import (
	"context"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"kashi/billing"
	"kashi/models"
	"kashi/models/modelstest"
)

// TestChangeMidMonthReconciles is the pool change in the demo's past: the admin made the
// RTX 4090 pool keep 3 machines instead of 4 and release unneeded ones after 10 minutes
// instead of 2 hours on 15 February, and the past's machines followed the settings of their day. Its before/after
// covers 1–15 and 15 February–1 March, which together are the month: the two periods' held
// and effective card time add up to the issued February bills' lines on the pool's cards,
// their provisioned card time to the month's pool idle, and their costs to the month's
// within a fen of rounding; the counterfactual replays every task of the period after under
// both settings, and the smaller, quicker pool saves money and idle card time at the price
// of waits no shorter. On SQLite and Postgres.
func TestChangeMidMonthReconciles(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { changeMidMonthReconciles(t, demoPast(t)) })
	if os.Getenv(modelstest.PGEnv) != "" {
		t.Run("postgres", func(t *testing.T) {
			changeMidMonthReconciles(t, fillDemo(t, modelstest.Postgres(t, models.Options{})))
		})
	}
}

func changeMidMonthReconciles(t *testing.T, s *models.Store) {
	ctx := context.Background()
	loc, err := billing.Location(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	v := latestVersion(t, s, "rtx4090")
	if at := time.Date(2026, 2, 15, 0, 0, 0, 0, loc); !v.At.Equal(at) || v.By != "admin" {
		t.Fatalf("the RTX 4090 pool's latest version: %d at %s by %s; want the demo's change at %s", v.Version, v.At, v.By, at)
	}
	in, err := LoadChange(ctx, s, PoolRef("rtx4090", v.Version), demoStart)
	if err != nil {
		t.Fatal(err)
	}
	c, err := ComputeChange(in)
	if err != nil {
		t.Fatal(err)
	}
	feb, mar := time.Date(2026, 2, 1, 0, 0, 0, 0, loc), time.Date(2026, 3, 1, 0, 0, 0, 0, loc)
	if !c.Ready || !c.From.Equal(feb) || !c.To.Equal(mar) || c.Old.MinNodes != 4 || c.New.MinNodes != 3 || c.Old.UnneededS != 7200 || c.New.UnneededS != 600 {
		t.Fatalf("change: ready %v, %s – %s, min %d → %d, unneeded %d s → %d s; want February around 15 February, 4 → 3, 2 h → 10 min",
			c.Ready, c.From, c.To, c.Old.MinNodes, c.New.MinNodes, c.Old.UnneededS, c.New.UnneededS)
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
	var pools int
	for _, p := range month.PoolIdle {
		if p.Pool != "rtx4090" {
			continue
		}
		pools++
		if got := c.Before.ProvisionedS + c.After.ProvisionedS; got != p.ProvisionedS {
			t.Errorf("provisioned before + after = %d s, the month's pool idle %d s", got, p.ProvisionedS)
		}
		fen := billing.Amount(p.ProvisionedS, c.After.Cost.RateFen)
		if got := c.Before.Cost.ElasticFen + c.After.Cost.ElasticFen; got < fen-1 || got > fen+1 {
			t.Errorf("cost before + after = %d fen, the month's %d", got, fen)
		}
	}
	if pools != 1 {
		t.Errorf("the month's pool idle has %d lines of rtx4090, want 1", pools)
	}
	if c.Counter.Tasks != c.After.Tasks || c.Counter.OldFen <= 0 || c.Counter.NewFen <= 0 || c.Counter.SavedFen != c.Counter.OldFen-c.Counter.NewFen {
		t.Errorf("counterfactual %+v over %d tasks after", c.Counter, c.After.Tasks)
	}
	// Fewer machines kept, released sooner, cost less and idle less; the same tasks wait no less.
	if c.Counter.SavedFen <= 0 || c.Counter.NewIdleS >= c.Counter.OldIdleS || c.Counter.NewMeanWaitS < c.Counter.OldMeanWaitS {
		t.Errorf("keeping 3 machines, releasing after 10 minutes: %+v; want it to save money and idle time, waits no shorter", c.Counter)
	}
	t.Logf("before %+v after %+v counter %+v idle %+.1f%%", c.Before.Cost, c.After.Cost, c.Counter, c.Counter.IdlePct())
	cachedOnce(t, s, PoolRef("rtx4090", v.Version), c)
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
func cachedOnce(t *testing.T, s *models.Store, ref Ref, want Change) {
	ctx := context.Background()
	cc := NewChangeCache(2)
	src := &gatedSource{Store: s, gate: make(chan struct{})}
	head, ok, err := cc.Peek(ctx, src, ref, demoStart)
	if err != nil || ok || head.By != want.By || head.Note != want.Note || head.Ready || head.Old.UnneededS == head.New.UnneededS {
		t.Fatalf("Peek while measuring = %+v, %v, %v; want the change unmeasured, false", head, ok, err)
	}
	if _, ok, err := cc.Peek(ctx, src, ref, demoStart.Add(time.Minute)); ok || err != nil {
		t.Fatalf("Peek again while measuring = %v, %v; want false", ok, err)
	}
	close(src.gate)
	got, err := cc.Measure(ctx, src, ref, demoStart)
	if err != nil || !got.Ready || got.Counter != want.Counter || got.Before.Cost != want.Before.Cost || got.After.Cost != want.After.Cost {
		t.Fatalf("Measure = %+v, %v; want %+v", got.Counter, err, want.Counter)
	}
	if n := src.loads.Load(); n != 2 {
		t.Errorf("asked three times, the cache loaded %d periods, want 2 (one measure)", n)
	}
	later, ok, err := cc.Peek(ctx, src, ref, demoStart.Add(2*time.Hour))
	if err != nil || !ok || later.Counter != want.Counter || src.loads.Load() != 2 {
		t.Errorf("Peek two hours later = %v, %v, %d loads; want the kept measure", ok, err, src.loads.Load())
	}
}

// TestPoolReclaimChangeCounts: a version of the RTX 4090 pool (where the demo's idle holders
// run) that changes only its idle reclaim (a notice after 10 idle minutes and the stop 5
// minutes later, from 30 and 30) on 22 February is measured like a project's reclaim
// change: the period after's tasks stop where the production rule would under each
// setting, and each side's tasks are replayed held until those stops; the quicker reclaim
// stops its tasks sooner, so they hold fewer machines for less.
func TestPoolReclaimChangeCounts(t *testing.T) {
	ctx := context.Background()
	s := demoPast(t)
	loc, err := billing.Location(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.ConfiguredPoolByName(ctx, "rtx4090")
	if err != nil {
		t.Fatal(err)
	}
	cfg := p.Config
	cfg.ReclaimIdleS, cfg.ReclaimGraceS = 600, 300
	v, err := s.SavePoolConfig(ctx, "rtx4090", cfg, "admin", "reclaim sooner", time.Date(2026, 2, 22, 0, 0, 0, 0, loc))
	if err != nil {
		t.Fatal(err)
	}
	c, err := MeasureChange(ctx, s, PoolRef("rtx4090", v.Version), demoStart)
	if err != nil {
		t.Fatal(err)
	}
	cf := c.Counter
	t.Logf("counter %+v", cf)
	if !cf.Reclaim || cf.OldStops == 0 || cf.NewStops < cf.OldStops {
		t.Errorf("counterfactual %+v: want idle reclaim re-evaluated, no fewer tasks stopped under the quicker setting", cf)
	}
	if cf.SavedFen <= 0 || cf.NewIdleS >= cf.OldIdleS {
		t.Errorf("counterfactual %+v: want the quicker reclaim to save money and idle card time", cf)
	}
}
