package rightsize

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// tried is a finished trial of a task on A100s (¥15/h: 400 samples/s on 1 card, 90 % of that
// per card on 2) and RTX 4090s (¥4.20/h: 180/s on 1, 90 % on 2), 20 minutes a run.
func tried() Tried {
	run := func(id int64, spec string, gpus int, perS int64, rate, peak int64) TrialRun {
		return TrialRun{TaskID: id, Spec: spec, GPUs: gpus, Ended: true, RuntimeS: 1200, Units: perS * 1200, RateFen: rate,
			Cards: []Card{busy(90, peak)}}
	}
	return Tried{ID: 7, Runs: []TrialRun{
		run(1, "A100-80G", 1, 400, 1500, 30_000), run(2, "A100-80G", 2, 720, 1500, 30_500),
		run(3, "RTX4090-24G", 1, 180, 420, 20_000), run(4, "RTX4090-24G", 2, 324, 420, 20_480),
	}}
}

// TestAdviseTried: a run on 2 A100s that kept both busy with 30 GiB at its peak is advised 2
// L40S by its readings alone (36 GiB with headroom fits them, maybe slower). A finished trial of it
// that ran it on RTX 4090s too measured each spec's throughput and scaling: per sample, 2 RTX
// 4090s cost 62 % of 2 A100s and take 222 % of the time, so the advice is theirs, per unit of
// output, naming the trial and the memory the trial saw on them. Without a trial, with one
// whose runs have not all ended, or with one that did not try the run's own spec, the advice
// is the readings'.
func TestAdviseTried(t *testing.T) {
	r := Run{Spec: "A100-80G", RuntimeS: 7200, Cards: []Card{
		{PeakMemMiB: 30_720, PeakUtilPct: 98, MeanUtilPct: 90, CoveredS: 7200},
		{PeakMemMiB: 30_000, PeakUtilPct: 97, MeanUtilPct: 88, CoveredS: 7200},
	}}
	readings := Advise(r, options)
	if readings.Spec != "L40S-48G" || readings.GPUs != 2 || !readings.Slower {
		t.Fatalf("Advise = %+v, want 2 × L40S-48G, maybe slower", readings)
	}
	want := Advice{Kind: KindSmaller, Spec: "RTX4090-24G", GPUs: 2, FromSpec: "A100-80G", FromGPUs: 2,
		PeakMemMiB: 20_480, CardMemMiB: 24564, CostPct: 62, SavingFenPerHour: 1133, TrialID: 7, TimePct: 222}
	if d := cmp.Diff(want, AdviseTried(r, options, tried())); d != "" {
		t.Errorf("AdviseTried (-want +got):\n%s", d)
	}

	running := tried()
	running.Runs[3].Ended = false
	noOwnSpec := tried()
	noOwnSpec.Runs = noOwnSpec.Runs[2:]
	for name, tr := range map[string]Tried{"no trial": {}, "still running": running, "own spec not tried": noOwnSpec} {
		if d := cmp.Diff(readings, AdviseTried(r, options, tr)); d != "" {
			t.Errorf("%s: AdviseTried differs from Advise (-want +got):\n%s", name, d)
		}
	}
}

// TestAdviseTriedScaling: a run on 4 A100s, all busy, whose trial found they scale poorly
// (2 cards give 60 % per card of 1) is advised 1 A100, the largest size that scaled, per
// unit of output; one whose cards never worked stays "unused" whatever the trial says.
func TestAdviseTriedScaling(t *testing.T) {
	card := Card{PeakMemMiB: 70_000, PeakUtilPct: 95, MeanUtilPct: 85, CoveredS: 3600}
	r := Run{Spec: "A100-80G", RuntimeS: 3600, Cards: []Card{card, card, card, card}}
	tr := Tried{ID: 9, Runs: []TrialRun{
		{TaskID: 1, Spec: "A100-80G", GPUs: 1, Ended: true, RuntimeS: 1200, Units: 480_000, RateFen: 1500, Cards: []Card{busy(90, 70_000)}},
		{TaskID: 2, Spec: "A100-80G", GPUs: 2, Ended: true, RuntimeS: 1200, Units: 576_000, RateFen: 1500, Cards: []Card{busy(60, 70_000)}},
	}}
	got := AdviseTried(r, options, tr)
	// 4 cards projected at 60 % per card from 2 cards' 480/s: 576/s; 1 card 400/s. Per
	// sample: ¥15/400 against ¥60/576, 36 %; the same samples take 144 % of the time.
	if got.Kind != KindFewer || got.GPUs != 1 || got.Spec != "A100-80G" || got.TrialID != 9 || got.CostPct != 36 ||
		got.TimePct != 144 || got.SavingFenPerHour != 3840 {
		t.Errorf("AdviseTried = %+v, want 1 × A100-80G at 36 %% of the cost per unit, 144 %% of the time, saving ¥38.40/h, from trial 9", got)
	}
	idle := Card{PeakUtilPct: 1, CoveredS: 3600}
	if got := AdviseTried(Run{Spec: "A100-80G", RuntimeS: 3600, Cards: []Card{idle, idle}}, options, tr); got.Kind != KindUnused || got.TrialID != 0 {
		t.Errorf("AdviseTried of unused cards = %+v, want unused, not from the trial", got)
	}
}
