package billing

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/models"
)

const (
	a100 = "A100-80G"
	h800 = "H800-80G"
)

func TestPayAsYouGo(t *testing.T) {
	f := newFixture(t, "2026-03", "Asia/Shanghai").project(1, "alpha").
		price(0, a100, 1500, 2500).price(0, h800, 3000, 4000).price(1, h800, 2800, 3900).
		task(1, 1, "train", models.TaskSucceeded, 0, 11).hold(1, 1, 1, a100, 1, 11, false).hold(1, 1, 2, a100, 1, 11, false).
		busy(1, 2, 11, 30, 30, 0).
		task(2, 1, "burst", models.TaskSucceeded, 0, 23).hold(2, 1, 3, a100, 20, 23, true).
		task(3, 1, "eval", models.TaskSucceeded, 0, 30).hold(3, 1, 9, h800, 29.5, 30, false)
	f.in.Adjustments = []models.Adjustment{{ID: 7, ProjectID: 1, Month: "2026-03", AmountFen: -500, Reason: "outage credit", CorrectsMonth: "2026-02"}}
	b := billOf(t, f.compute(t), "alpha")

	want := []Line{
		{TaskID: 1, Task: "train", Owner: "ana", State: models.TaskSucceeded, Ending: models.EndFinished, Spec: a100, Pricing: PricingCardHour,
			Breakdown: Breakdown{Setup: 3600, Active: 9 * 3600, NoData: 10 * 3600}, NominalS: 20 * 3600, EffectiveS: 9 * 3600,
			RateFen: 1500, AmountFen: 30000},
		{TaskID: 2, Task: "burst", Owner: "ana", State: models.TaskSucceeded, Ending: models.EndFinished, Spec: a100, Pricing: PricingOverflow,
			Breakdown: Breakdown{NoData: 3 * 3600}, NominalS: 3 * 3600, RateFen: 2500, AmountFen: 7500},
		{TaskID: 3, Task: "eval", Owner: "ana", State: models.TaskSucceeded, Ending: models.EndFinished, Spec: h800, Pricing: PricingCardHour,
			Breakdown: Breakdown{NoData: 1800}, NominalS: 1800, RateFen: 2800, AmountFen: 1400},
	}
	if diff := cmp.Diff(want, b.Lines); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	if b.TotalFen != 30000+7500+1400-500 {
		t.Errorf("TotalFen = %d, want %d", b.TotalFen, 30000+7500+1400-500)
	}
	if it := item(b, ItemOverflow, a100); it.NominalS != 3*3600 || it.AmountFen != 7500 {
		t.Errorf("overflow item = %+v", it)
	}
	if it := item(b, ItemAdjustment, ""); it.AmountFen != -500 || it.Note != "outage credit (corrects 2026-02)" {
		t.Errorf("adjustment item = %+v", it)
	}
	if !cmp.Equal(b.AdjustmentIDs, []int64{7}) || b.Mode != models.BillPayAsYouGo || len(b.MissingPrices) != 0 {
		t.Errorf("bill = ids %v, mode %q, missing %v", b.AdjustmentIDs, b.Mode, b.MissingPrices)
	}
}

func TestReservedPackage(t *testing.T) {
	f := newFixture(t, "2026-03", "Asia/Shanghai").project(2, "beta").project(3, "gamma").
		price(0, a100, 1500, 2500).price(0, h800, 3000, 4000).
		plan(models.BillingPlan{ProjectID: 2, Mode: models.BillReserved, PackageSpec: a100, PackageCards: 2, PackageFeeFen: 100000}).
		plan(models.BillingPlan{ProjectID: 3, Mode: models.BillReserved, PackageSpec: a100, PackageCards: 4, PackageFeeFen: 300000}).
		task(1, 2, "pretrain", models.TaskRunning, 0, -1).hold(1, 2, 1, a100, 0, -1, false).hold(1, 2, 2, a100, 0, -1, false).
		task(2, 2, "extra", models.TaskSucceeded, 0, 10).hold(2, 2, 3, a100, 0, 10, false).
		task(3, 2, "infer", models.TaskSucceeded, 0, 2).hold(3, 2, 9, h800, 0, 2, false).
		task(4, 3, "small", models.TaskSucceeded, 0, 100).hold(4, 3, 4, a100, 0, 100, false)
	res := f.compute(t)
	beta := billOf(t, res, "beta")
	month := int64(744 * 3600)
	wantPkg := &Package{Spec: a100, Cards: 2, FeeFen: 100000, OverflowRateFen: 2500, CoveredS: 2 * month,
		UsedS: 2*month + 10*3600, BeyondS: 10 * 3600}
	if diff := cmp.Diff(wantPkg, beta.Package); diff != "" {
		t.Errorf("beta package (-want +got):\n%s", diff)
	}
	if it := item(beta, ItemPackageBeyond, a100); it.AmountFen != 25000 || it.RateFen != 2500 {
		t.Errorf("beyond item = %+v, want 25000 fen at 2500", it)
	}
	if beta.TotalFen != 100000+25000+6000 {
		t.Errorf("beta total = %d, want %d", beta.TotalFen, 100000+25000+6000)
	}
	for _, l := range beta.Lines {
		if (l.Spec == a100) != (l.Pricing == PricingPackage) || (l.Pricing == PricingPackage && l.AmountFen != 0) {
			t.Errorf("beta line %d %s priced %s %d fen", l.TaskID, l.Spec, l.Pricing, l.AmountFen)
		}
	}
	gamma := billOf(t, res, "gamma")
	if p := gamma.Package; p == nil || p.UnusedS != 4*month-100*3600 || p.BeyondS != 0 || gamma.TotalFen != 300000 {
		t.Errorf("gamma package = %+v, total %d; want %d s unused, total 300000", p, gamma.TotalFen, 4*month-100*3600)
	}
}

func TestPerTask(t *testing.T) {
	f := newFixture(t, "2026-03", "UTC").project(4, "delta").price(0, a100, 1500, 2500).
		plan(models.BillingPlan{ProjectID: 4, Mode: models.BillPerTask, UnitPriceFen: 3}).
		task(1, 4, "done", models.TaskSucceeded, 1000, 5).hold(1, 4, 1, a100, 1, 5, false).
		task(2, 4, "running", models.TaskRunning, 0, -1).hold(2, 4, 2, a100, 1, -1, false).
		task(3, 4, "over", models.TaskSucceeded, 10, 3).hold(3, 4, 3, a100, 0, 3, true)
	b := billOf(t, f.compute(t), "delta")
	got := map[string]Line{}
	for _, l := range b.Lines {
		got[l.Task] = l
	}
	if l := got["done"]; l.Pricing != PricingUnit || l.AmountFen != 3000 || l.NominalS != 4*3600 || l.RateFen != 3 {
		t.Errorf("done = %+v, want 1000 units × 3 fen with 4 card-hours beside", l)
	}
	if l := got["running"]; l.AmountFen != 0 || l.Note == "" || l.NominalS == 0 {
		t.Errorf("running = %+v, want no charge until it ends", l)
	}
	if l := got["over"]; l.Pricing != PricingOverflow || l.AmountFen != 7500 {
		t.Errorf("over = %+v, want 3 h at the overflow rate", l)
	}

	classes := `[{"name":"S","max_card_hours":10,"price_fen":1000},{"name":"L","max_card_hours":0,"price_fen":90000}]`
	f = newFixture(t, "2026-03", "UTC").project(4, "delta").
		plan(models.BillingPlan{ProjectID: 4, Mode: models.BillPerTask, SizeClasses: classes}).
		task(1, 4, "big", models.TaskSucceeded, 0, 6).hold(1, 4, 1, a100, 0, 6, false).hold(1, 4, 2, a100, 0, 6, false).
		task(2, 4, "since-feb", models.TaskSucceeded, 0, 3).hold(2, 4, 3, a100, -5, 3, false)
	b = billOf(t, f.compute(t), "delta")
	if l := b.Lines[0]; l.SizeClass != "L" || l.AmountFen != 90000 || l.Pricing != PricingTask {
		t.Errorf("big (12 card-hours) = %+v, want class L", l)
	}
	if l := b.Lines[1]; l.SizeClass != "S" || l.AmountFen != 1000 || l.NominalS != 3*3600 {
		t.Errorf("since-feb (8 card-hours, 3 in March) = %+v, want class S", l)
	}
	if b.TotalFen != 91000 {
		t.Errorf("total = %d, want 91000", b.TotalFen)
	}
}

func TestMissingPrice(t *testing.T) {
	f := newFixture(t, "2026-03", "UTC").project(1, "alpha").price(0, a100, 1500, 2500).
		task(1, 1, "x", models.TaskSucceeded, 0, 1).hold(1, 1, 1, "L40S-45G", 0, 1, false)
	b := billOf(t, f.compute(t), "alpha")
	if !cmp.Equal(b.MissingPrices, []string{"L40S-45G"}) || b.TotalFen != 0 {
		t.Errorf("MissingPrices = %v, total %d", b.MissingPrices, b.TotalFen)
	}
}

func TestInterruptedAndLostNode(t *testing.T) {
	f := newFixture(t, "2026-03", "UTC").project(1, "alpha").price(0, a100, 3600, 3600).
		task(1, 1, "crash", models.TaskFailed, 0, 2).hold(1, 1, 1, a100, 0, 2, false).busy(1, 0, 2, 30, 30, 0).
		task(2, 1, "on-lost", models.TaskRunning, 0, -1).hold(2, 1, 9, a100, 0, -1, false)
	f.in.Nodes = []models.LedgerNode{
		{ID: 1, Pool: "a", Spec: a100, State: models.NodeReady, RegisteredAt: f.at(-100), LastSeenAt: f.at(1000), GPUIDs: []int64{1}},
		{ID: 2, Pool: "a", Spec: a100, State: models.NodeLost, RegisteredAt: f.at(-100), LastSeenAt: f.at(5), GPUIDs: []int64{9}},
	}
	b := billOf(t, f.compute(t), "alpha")
	if l := b.Lines[0]; l.Active != 2*3600 || l.WastedS != 2*3600 || l.Ending != models.EndFailed || l.NominalS != 2*3600 || l.AmountFen != 7200 {
		t.Errorf("crash = %+v, want 2 h active, all wasted, failed, still charged", l)
	}
	if l := b.Lines[1]; l.NominalS != 5*3600 {
		t.Errorf("on lost node = %d s, want 5 h (cut at the node's last sight)", l.NominalS)
	}
}

func TestPoolIdle(t *testing.T) {
	f := newFixture(t, "2026-04", "Asia/Shanghai").project(1, "alpha").project(2, "beta").price(0, a100, 1, 1).
		plan(models.BillingPlan{ProjectID: 2, Mode: models.BillReserved, PackageSpec: a100, PackageCards: 1}).
		task(1, 1, "x", models.TaskSucceeded, 0, 10).hold(1, 1, 1, a100, 0, 10, false).hold(1, 1, 2, a100, 0, 10, false).
		task(2, 2, "y", models.TaskSucceeded, 0, 700).hold(2, 2, 3, a100, 0, 700, false).
		task(3, 1, "z", models.TaskSucceeded, 0, 8).hold(3, 1, 1, a100, 5, 8, false) // overlaps x on GPU 1
	f.in.Nodes = []models.LedgerNode{{ID: 1, Pool: "a100-pool", Spec: a100, State: models.NodeReady,
		RegisteredAt: f.at(-5), LastSeenAt: f.at(100000), GPUIDs: []int64{1, 2, 3, 4}}}
	res := f.compute(t)
	month := int64(720 * 3600)
	want := []PoolIdle{{Pool: "a100-pool", Spec: a100, ProvisionedS: 4 * month, HeldS: (10 + 10 + 700) * 3600,
		IdleS: 4*month - 720*3600, PackageS: 20 * 3600, OrganisationS: 4*month - 720*3600 - 20*3600}}
	if diff := cmp.Diff(want, res.PoolIdle); diff != "" {
		t.Errorf("PoolIdle (-want +got):\n%s", diff)
	}
}

func TestMonthBoundarySplit(t *testing.T) {
	// 2026-02-28 20:00 to 2026-03-01 04:00 Shanghai time: 4 h in February, 4 h in March.
	f := newFixture(t, "2026-03", "Asia/Shanghai").project(1, "alpha").price(0, a100, 1000, 1000).
		task(1, 1, "night", models.TaskSucceeded, 0, 4).hold(1, 1, 1, a100, -4, 4, false)
	mar := billOf(t, f.compute(t), "alpha")
	f.in.Month = Month{2026, time.February}
	feb := billOf(t, f.compute(t), "alpha")
	if mar.NominalS != 4*3600 || feb.NominalS != 4*3600 || mar.TotalFen != 4000 || feb.TotalFen != 4000 {
		t.Errorf("February %d s %d fen, March %d s %d fen; want 4 h and 4000 fen each", feb.NominalS, feb.TotalFen, mar.NominalS, mar.TotalFen)
	}
}

func TestGroupByTag(t *testing.T) {
	bills := []Bill{
		{ProjectID: 1, Project: "a", NominalS: 10, TotalFen: 100},
		{ProjectID: 2, Project: "b", NominalS: 20, TotalFen: 200},
		{ProjectID: 3, Project: "c", NominalS: 40, TotalFen: 400},
	}
	bills[0].Tags, bills[1].Tags = []string{"nlp", "cv"}, []string{"nlp"}
	got := GroupByTag(bills)
	want := []TagGroup{
		{Tag: "cv", Projects: []string{"a"}, NominalS: 10, TotalFen: 100},
		{Tag: "nlp", Projects: []string{"a", "b"}, NominalS: 30, TotalFen: 300},
		{Tag: "", Projects: []string{"c"}, NominalS: 40, TotalFen: 400},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("GroupByTag (-want +got):\n%s", diff)
	}
}

// TestLineRegion: a line's region is that of the node of its first allocation (by id) whose
// node has one, whatever order the GPUs come in.
func TestLineRegion(t *testing.T) {
	f := newFixture(t, "2026-03", "UTC").project(1, "alpha").price(0, a100, 1500, 2500).
		task(1, 1, "spread", models.TaskSucceeded, 0, 5).
		hold(1, 1, 9, a100, 1, 5, false).hold(1, 1, 1, a100, 1, 5, false).
		task(2, 1, "unplaced-first", models.TaskSucceeded, 0, 5).
		hold(2, 1, 17, a100, 1, 5, false).hold(2, 1, 2, a100, 1, 5, false)
	f.in.Regions = map[int64]string{1: "华北-2", 2: "华东-1"} // nodes 1 and 2 (GPUs 1–8, 9–16); node 3 has none
	b := billOf(t, f.compute(t), "alpha")
	got := map[int64]string{}
	for _, l := range b.Lines {
		got[l.TaskID] = l.Region
	}
	if want := map[int64]string{1: "华东-1", 2: "华北-2"}; !cmp.Equal(want, got) {
		t.Errorf("regions by task = %v, want %v", got, want)
	}
}

// TestWastedOfALineOfManySpans: a failed task whose cards were held over different spans
// (a node lost early, a card added late) wastes, on its one line, each card's seconds after
// the checkpoint, inside the month.
func TestWastedOfALineOfManySpans(t *testing.T) {
	f := newFixture(t, "2026-03", "UTC").project(1, "alpha").price(0, a100, 3600, 3600).
		task(1, 1, "multi", models.TaskFailed, 0, 10).
		hold(1, 1, 1, a100, -2, 10, false).hold(1, 1, 2, a100, -2, 10, false). // 2 cards from before the month
		hold(1, 1, 3, a100, 1, 4, false).                                      // lost at 4 h
		hold(1, 1, 4, a100, 6, 10, false)                                      // added at 6 h
	f.tasks[0].CheckpointAt = f.at(5).Unix()
	b := billOf(t, f.compute(t), "alpha")
	// After 5 h: 5 h on each of cards 1 and 2, none on 3, 4 h on 4.
	if l := b.Lines[0]; len(b.Lines) != 1 || l.WastedS != (5+5+0+4)*3600 || l.NominalS != (10+10+3+4)*3600 {
		t.Errorf("lines = %+v, want one of 27 h, 14 h wasted", b.Lines)
	}
}
