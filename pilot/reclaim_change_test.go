package pilot

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"kashi/billing"
	"kashi/models"
	"kashi/phrase"
)

// TestReclaimChangeReconciles: in the demo's past vision's lead tightens its idle reclaim
// on 15 February (a notice after 15 idle minutes and the stop 10 minutes later, from the
// pools' 30 and 30). Its periods are 1–15 and 15 February–1 March: vision's card time held
// and used in the two adds up to its issued February bill's lines, to the second, and its
// tasks to those it submitted in the month. The period after re-evaluated under the old
// setting holds its idle cards longer: more idle card time and cost than under the new,
// whose side is the bill's after to within a 5-minute bucket a task; the weekly report lists
// it with the same figures. The demo's own price
// change (the RTX 4090 from February) measures too, against its February bills.
func TestReclaimChangeReconciles(t *testing.T) {
	ctx := context.Background()
	s := demoPast(t)
	loc, err := billing.Location(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	vision, err := s.ProjectByName(ctx, "vision")
	if err != nil {
		t.Fatal(err)
	}
	edits, err := s.ReclaimEdits(ctx, vision.ID, time.Time{}, time.Time{})
	if err != nil || len(edits) != 1 {
		t.Fatalf("vision's reclaim edits = %+v, %v; want the demo's one", edits, err)
	}
	if _, err := MeasureChange(ctx, s, ReclaimRef(vision.ID+1, edits[0].ID), demoStart); err != ErrNoChange {
		t.Errorf("the change under another project measured: %v, want ErrNoChange", err)
	}
	c, err := MeasureChange(ctx, s, ReclaimRef(vision.ID, edits[0].ID), demoStart)
	if err != nil {
		t.Fatal(err)
	}
	feb, mar := time.Date(2026, 2, 1, 0, 0, 0, 0, loc), time.Date(2026, 3, 1, 0, 0, 0, 0, loc)
	if !c.Ready || !c.From.Equal(feb) || !c.At.Equal(time.Date(2026, 2, 15, 0, 0, 0, 0, loc)) || !c.To.Equal(mar) || c.By != "lead" ||
		c.Reclaim.Project != "vision" || c.Reclaim.Old != (models.ReclaimOverride{}) || c.Reclaim.New.IdleS != 900 {
		t.Fatalf("reclaim change: ready %v, %s – %s – %s, by %q, %+v; want February around 15 February", c.Ready, c.From, c.At, c.To, c.By, c.Reclaim)
	}
	held, effective := issuedCardTime(t, s, "2026-02", vision.ID, "")
	if got := c.Before.HeldS + c.After.HeldS; got != held || held == 0 {
		t.Errorf("vision's held before + after = %d + %d = %d s, its February bill's lines %d s", c.Before.HeldS, c.After.HeldS, got, held)
	}
	if got := c.Before.EffectiveS + c.After.EffectiveS; got != effective {
		t.Errorf("vision's effective before + after = %d s, its February bill's %d s", got, effective)
	}
	spans, err := s.TaskSpans(ctx, feb, mar)
	if err != nil {
		t.Fatal(err)
	}
	tasks := 0
	for _, sp := range spans {
		if sp.Project == "vision" {
			tasks++
		}
	}
	if got := c.Before.Tasks + c.After.Tasks; got != tasks || tasks == 0 {
		t.Errorf("vision's tasks before + after = %d, submitted in February %d", got, tasks)
	}
	cf := c.Counter
	if cf.Tasks == 0 || cf.SavedFen != cf.OldFen-cf.NewFen || cf.SavedFen <= 0 || cf.OldIdleS <= cf.NewIdleS || cf.NewStops == 0 {
		t.Errorf("counterfactual %+v; want the old setting to hold idle cards longer", cf)
	}
	// The new side is what ran: the bill's card time after, but for the 5-minute buckets
	// in which a reclaimed task's idle stretch starts.
	in, err := LoadChange(ctx, s, ReclaimRef(vision.ID, edits[0].ID), demoStart)
	if err != nil {
		t.Fatal(err)
	}
	var newHeld int64
	for _, a := range in.Reclaim.after {
		_, cur, err := reclaimRuns(a, c.Reclaim.Old, c.Reclaim.New)
		if err != nil {
			t.Fatal(err)
		}
		newHeld += cur.heldS
	}
	if slack := int64(cf.NewStops) * 8 * models.Rollup5m; newHeld > c.After.HeldS || newHeld < c.After.HeldS-slack {
		t.Errorf("held under the new setting %d s, the bill's after %d s (− %d s at most)", newHeld, c.After.HeldS, slack)
	}
	en := phrase.Locale{Lang: phrase.LangEN}
	if got := c.Sentence(en, loc); !strings.HasPrefix(got, "This change saved ¥") {
		t.Errorf("sentence %q", got)
	}
	t.Logf("counter %+v idle %+.1f%%: %s", cf, cf.IdlePct(), c.Sentence(en, loc))

	// The weekly report lists it with the same measure, beside the RTX 4090 pool's change
	// of the same day.
	week, err := WeekChanges(ctx, s, MeasureChange, c.At.Add(-time.Hour), c.At.Add(time.Hour), demoStart)
	refs := make([]Ref, len(week))
	for i, w := range week {
		refs[i] = w.Ref
	}
	k := slices.Index(refs, c.Ref)
	if err != nil || len(week) != 2 || k < 0 || week[k].Counter != c.Counter || !slices.Contains(refs, PoolRef("rtx4090", 2)) {
		t.Errorf("WeekChanges around the change = %+v, %v; want the change and the pool's", refs, err)
	}

	hist, err := s.PriceHistory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range hist {
		if p.Spec != "RTX4090-24G" || p.FromMonth != "2026-02" {
			continue
		}
		pc, err := MeasureChange(ctx, s, PriceRef(p.ID), demoStart)
		if err != nil || !pc.Ready || pc.Price.OldRateFen != 700 || pc.Price.NewRateFen != 600 || pc.Counter.SavedFen <= 0 || pc.After.HeldS == 0 {
			t.Errorf("the demo's RTX 4090 price change = %+v %+v, %v; want 700 → 600 saving on February's bills", pc.Price, pc.Counter, err)
		}
	}
}
