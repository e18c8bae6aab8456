package rightsize

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMergeFitsEveryRun: a template whose runs each used 2 of 8 cards, but not the same
// ones, and peaked at 17 and 30 GiB, is advised 2 cards that hold 30 GiB; a run of another
// shape or without evidence is left out.
func TestMergeFitsEveryRun(t *testing.T) {
	busy := func(mem int64, util int) Card {
		return Card{PeakMemMiB: mem * MiBPerGiB, PeakUtilPct: util, MeanUtilPct: util - 10, CoveredS: 3600}
	}
	idle := Card{PeakMemMiB: 500, PeakUtilPct: 2, CoveredS: 3600}
	eight := func(a, b Card) []Card { return []Card{idle, a, idle, idle, b, idle, idle, idle} }
	runs := []Run{
		{Spec: "A100-80G", RuntimeS: 3600, Cards: eight(busy(17, 90), busy(12, 60))},
		{Spec: "A100-80G", RuntimeS: 7200, Cards: []Card{busy(30, 80), busy(20, 50), idle, idle, idle, idle, idle, idle}},
		{Spec: "A100-80G", RuntimeS: 60, Cards: eight(busy(79, 99), busy(79, 99))},    // too short
		{Spec: "A100-80G", RuntimeS: 3600, Cards: []Card{busy(79, 99), busy(79, 99)}}, // another shape
		{Spec: "H800-80G", RuntimeS: 3600, Cards: eight(busy(79, 99), busy(79, 99))},  // another spec
	}
	merged, n := Merge(runs)
	if n != 2 {
		t.Fatalf("Merge merged %d runs, want 2", n)
	}
	options := []Option{{"A100-80G", 80 * MiBPerGiB, 1500}, {"RTX4090-24G", 24 * MiBPerGiB, 420}, {"L40S-48G", 48 * MiBPerGiB, 700}}
	got := Advise(merged, options)
	want := Advice{Kind: KindSmallerFewer, Spec: "L40S-48G", GPUs: 2, FromSpec: "A100-80G", FromGPUs: 8, IdleCards: 6,
		PeakMemMiB: 30 * MiBPerGiB, CardMemMiB: 80 * MiBPerGiB, CostPct: 11, SavingFenPerHour: 8*1500 - 2*700}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Advise(Merge(runs)) (-want +got):\n%s", diff)
	}
	if _, n := Merge(runs[2:3]); n != 0 {
		t.Errorf("Merge of a run without evidence merged %d", n)
	}
}
