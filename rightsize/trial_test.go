package rightsize

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// busy is a card that ran at util % mean with peak MiB of memory.
func busy(util int, peak int64) Card {
	return Card{PeakMemMiB: peak, PeakUtilPct: util + 10, MeanUtilPct: util, CoveredS: 600}
}

// TestTrialFigures: per run its output per hour, its efficiency against its spec's smallest
// size, its cost and cost per million units at its price, its peak memory and whether its
// cards were kept busy.
func TestTrialFigures(t *testing.T) {
	runs := []TrialRun{
		// A100 at ¥15/h: 1 card 400/s, 2 cards 720/s (90 %).
		{TaskID: 1, Spec: "A100", GPUs: 1, Ended: true, RuntimeS: 1200, Units: 480_000, RateFen: 1500, Cards: []Card{busy(90, 60_000)}},
		{TaskID: 2, Spec: "A100", GPUs: 2, Ended: true, RuntimeS: 1200, Units: 864_000, RateFen: 1500, Cards: []Card{busy(88, 61_000), busy(86, 59_000)}},
		// RTX at ¥4/h: 1 card 200/s, 2 cards 300/s (75 %), cards waiting on data.
		{TaskID: 3, Spec: "RTX", GPUs: 1, Ended: true, RuntimeS: 1200, Units: 240_000, RateFen: 400, Cards: []Card{busy(50, 20_000)}},
		{TaskID: 4, Spec: "RTX", GPUs: 2, Ended: true, RuntimeS: 1200, Units: 360_000, RateFen: 400, Cards: []Card{busy(40, 21_000), {}}},
	}
	rep := Trial(runs, 100_000_000, 8)
	type fig struct {
		PerHour  int64
		Eff      int
		Cost     int64
		PerM     int64
		Peak     int64
		Util     int
		Busy     bool
		Measured bool
	}
	var got []fig
	for _, r := range rep.Rows {
		got = append(got, fig{r.UnitsPerHour, r.EfficiencyPct, r.CostFen, *r.CostPerMFen, r.PeakMemMiB, r.MeanUtilPct, r.Busy, r.Measured})
	}
	want := []fig{
		{1_440_000, 0, 500, 1042, 60_000, 90, true, true},   // ¥5 for 20 min; ¥15 / 1.44M per hour
		{2_592_000, 90, 1000, 1157, 61_000, 87, true, true}, // 2×¥15 / 2.592M
		{720_000, 0, 133, 556, 20_000, 50, false, true},     // ¥4 / 0.72M
		{1_080_000, 75, 267, 741, 21_000, 40, false, true},  // 2×¥4 / 1.08M; the silent card not counted
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Trial rows (-want +got):\n%s", d)
	}
	if !rep.Done || rep.Proposal == nil {
		t.Fatalf("Trial = %+v; want it done with a proposal", rep)
	}
	// At 8 cards: A100 projects 2.592M × 4 × 90 % = 9.3312M/h at ¥120/h (¥12.86 per M);
	// RTX 1.08M × 4 × 75 % = 3.24M/h at ¥32/h (¥9.88 per M): the RTX is cheaper per unit.
	p := *rep.Proposal
	if p.Spec != "RTX" || p.GPUs != 8 || !p.Projected || !p.Scales || p.UnitsPerHour != 3_240_000 || *p.CostPerMFen != 988 {
		t.Errorf("proposal = %+v (per M %d); want 8 RTX at 3.24M/h, ¥9.88 per M", p, *p.CostPerMFen)
	}
	// 100M units at 3.24M/h on 8 cards: 30.86 h, 246.9 card-hours, ¥987.65.
	if p.CardS != 888_889 || p.CostFen != 98_765 {
		t.Errorf("proposal's card-seconds %d and cost %d fen; want 888,889 and 98,765", p.CardS, p.CostFen)
	}
}

// TestTrialProposal: a spec that stops scaling stays at the largest size that scaled; a run
// still going leaves no proposal; a trial without prices proposes the fastest.
func TestTrialProposal(t *testing.T) {
	run := func(id int64, spec string, gpus int, units, rate int64) TrialRun {
		return TrialRun{TaskID: id, Spec: spec, GPUs: gpus, Ended: true, RuntimeS: 3600, Units: units, RateFen: rate}
	}
	tests := map[string]struct {
		runs     []TrialRun
		full     int
		wantSpec string
		wantGPUs int
		scales   bool
		none     bool
	}{
		"stops scaling past 2": {runs: []TrialRun{run(1, "A", 1, 100, 0), run(2, "A", 2, 190, 0), run(3, "A", 4, 200, 0)},
			full: 16, wantSpec: "A", wantGPUs: 2},
		"never scales": {runs: []TrialRun{run(1, "A", 1, 100, 10), run(2, "A", 2, 110, 10)}, full: 8, wantSpec: "A", wantGPUs: 1},
		"fastest without prices": {runs: []TrialRun{run(1, "A", 1, 100, 0), run(2, "B", 1, 300, 0)},
			wantSpec: "B", wantGPUs: 1, scales: true},
		"a priced spec before an unpriced one": {runs: []TrialRun{run(1, "A", 1, 100, 10), run(2, "B", 1, 300, 0)},
			wantSpec: "A", wantGPUs: 1, scales: true},
		"a run still going": {runs: []TrialRun{run(1, "A", 1, 100, 10), {TaskID: 2, Spec: "A", GPUs: 2, RuntimeS: 60, Units: 5}}, none: true},
		"no output":         {runs: []TrialRun{{TaskID: 1, Spec: "A", GPUs: 1, Ended: true, RuntimeS: 600}}, none: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			rep := Trial(tc.runs, 0, tc.full)
			if tc.none {
				if rep.Proposal != nil {
					t.Errorf("Trial = %+v; want no proposal", rep.Proposal)
				}
				return
			}
			p := rep.Proposal
			if p == nil || p.Spec != tc.wantSpec || p.GPUs != tc.wantGPUs || p.CardS != 0 || (tc.scales && !p.Scales) {
				t.Errorf("Trial proposal = %+v; want %d × %s", p, tc.wantGPUs, tc.wantSpec)
			}
		})
	}
}
