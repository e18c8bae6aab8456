package billing

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"kashi/models"
	"kashi/rightsize"
)

// use adds 5-minute rollups for gpu from start to end hours, each one reading at util % and
// memGiB.
func (f *fixture) use(gpu int64, start, end float64, util int, memGiB int64) *fixture {
	for b := f.at(start).Unix(); b < f.at(end).Unix(); b += models.Rollup5m {
		r := models.GPURollup{GPUID: gpu, Resolution: models.Rollup5m, Bucket: b - b%models.Rollup5m, N: 1,
			UtilMax: util, UtilSum: int64(util), MemMax: memGiB * 1024}
		if util >= 50 {
			r.NActive = 1
		} else if util < 5 {
			r.NIdle = 1
		}
		f.rollups = append(f.rollups, r)
	}
	return f
}

// TestReportAdvice: the week's report lists per project the ended tasks whose next run could
// ask for fewer or cheaper cards, the biggest saving first, at most AdvicePerProject; a task
// that needed all its cards, one still running and one too short give none.
func TestReportAdvice(t *testing.T) {
	f := newFixture(t, "2026-03", "UTC").project(1, "alpha").project(2, "beta")
	// wide asked for 8 A100s for 2 hours and used 2, at 17 GiB: 2 × 4090 would do.
	f.task(1, 1, "wide", models.TaskSucceeded, 0, 2)
	for g := int64(1); g <= 8; g++ {
		f.hold(1, 1, g, a100, 0, 2, false)
		if g <= 2 {
			f.use(g, 0, 2, 90, 17)
		} else {
			f.use(g, 0, 2, 0, 0)
		}
	}
	// full used its 2 cards near their memory: sized right.
	f.task(2, 1, "full", models.TaskSucceeded, 0, 3).hold(2, 1, 9, a100, 1, 3, false).hold(2, 1, 10, a100, 1, 3, false).
		use(9, 1, 3, 95, 75).use(10, 1, 3, 95, 75)
	// half used 1 of 2 cards at 60 GiB for an hour: one A100.
	f.task(3, 1, "half", models.TaskSucceeded, 0, 5).hold(3, 1, 11, a100, 4, 5, false).hold(3, 1, 12, a100, 4, 5, false).
		use(11, 4, 5, 80, 60).use(12, 4, 5, 1, 0)
	// idle held 2 A100s for 2 hours and used neither: no count or spec, and all it cost saved.
	f.task(6, 1, "idle", models.TaskSucceeded, 0, 2).hold(6, 1, 15, a100, 0, 2, false).hold(6, 1, 16, a100, 0, 2, false).
		use(15, 0, 2, 2, 0).use(16, 0, 2, 0, 0)
	// running and short: no advice.
	f.task(4, 1, "running", models.TaskRunning, 0, -1).hold(4, 1, 13, a100, 0, -1, false).use(13, 0, 6, 0, 0)
	f.task(5, 2, "short", models.TaskSucceeded, 0, 0.1).hold(5, 2, 14, a100, 0, 0.1, false).use(14, 0, 0.1, 0, 0)
	f.in.AsOf = f.at(6)
	from, to := f.at(0), f.at(24*7)
	options := func(int64) []rightsize.Option {
		return []rightsize.Option{{Spec: a100, MemMiB: 80 * 1024, RateFen: 1500}, {Spec: "RTX4090-24G", MemMiB: 24 * 1024, RateFen: 420}}
	}
	r, err := Utilization(WindowInput{From: from, To: to, AsOf: f.in.AsOf, Projects: f.in.Projects, Allocations: f.allocs,
		Tasks: f.tasks, Readings: f.rollups.readings(), SpecOptions: options})
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Task, Kind, Spec string
		GPUs, FromGPUs   int
		SavingFen        int64
	}
	var got []row
	for _, a := range r.Advice {
		got = append(got, row{a.Task, string(a.Advice.Kind), a.Advice.Spec, a.Advice.GPUs, a.Advice.FromGPUs, a.SavingFen})
	}
	want := []row{
		{"wide", "smaller-fewer", "RTX4090-24G", 2, 8, 2 * (8*1500 - 2*420)}, // 2 hours
		{"idle", "unused", "", 0, 2, 2 * 2 * 1500},
		{"half", "fewer", a100, 1, 2, 1500},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("report advice (-want +got):\n%s", diff)
	}
	for _, a := range r.Advice {
		if want := map[string]string{"wide": "wide: 2 × RTX4090-24G instead of 8 × A100-80G", "idle": "idle: none of 2 × A100-80G used"}[a.Task]; want != "" && AdviceText(a) != want {
			t.Errorf("AdviceText(%s) = %q, want %q", a.Task, AdviceText(a), want)
		}
	}

	for i := range AdvicePerProject + 1 { // more tasks than the list keeps
		id := int64(10 + i)
		g := int64(20 + 2*i)
		f.task(id, 2, "more", models.TaskSucceeded, 0, 2).hold(id, 2, g, a100, 1, 2, false).hold(id, 2, g+1, a100, 1, 2, false).
			use(g, 1, 2, 80, 60).use(g+1, 1, 2, 0, 0)
	}
	r, err = Utilization(WindowInput{From: from, To: to, AsOf: f.in.AsOf, Projects: f.in.Projects, Allocations: f.allocs,
		Tasks: f.tasks, Readings: f.rollups.readings(), SpecOptions: options})
	if err != nil {
		t.Fatal(err)
	}
	beta := 0
	for _, a := range r.Advice {
		if a.Project == "beta" {
			beta++
		}
	}
	if beta != AdvicePerProject || len(r.Advice) != 3+AdvicePerProject {
		t.Errorf("advice lists %d of beta's tasks (%d in all), want %d", beta, len(r.Advice), AdvicePerProject)
	}
}

// TestReportAdviceFromTrial: full kept its 2 A100s busy near their memory, so its readings
// alone give no advice; with a finished trial of it that measured RTX 4090s cheaper per
// sample, the week's report advises them, names the trial, and saves what the same output
// would have cost less over its 2 hours.
func TestReportAdviceFromTrial(t *testing.T) {
	f := newFixture(t, "2026-03", "UTC").project(1, "alpha")
	f.task(2, 1, "full", models.TaskSucceeded, 0, 3).hold(2, 1, 9, a100, 1, 3, false).hold(2, 1, 10, a100, 1, 3, false).
		use(9, 1, 3, 95, 30).use(10, 1, 3, 95, 30)
	f.in.AsOf = f.at(6)
	options := func(int64) []rightsize.Option {
		return []rightsize.Option{{Spec: a100, MemMiB: 80 * 1024, RateFen: 1500}, {Spec: "RTX4090-24G", MemMiB: 24 * 1024, RateFen: 420}}
	}
	run := func(id int64, spec string, gpus int, perS, rate int64) rightsize.TrialRun {
		return rightsize.TrialRun{TaskID: id, Spec: spec, GPUs: gpus, Ended: true, RuntimeS: 1200, Units: perS * 1200, RateFen: rate}
	}
	trial := rightsize.Tried{ID: 7, Runs: []rightsize.TrialRun{run(31, a100, 1, 400, 1500), run(32, a100, 2, 720, 1500),
		run(33, "RTX4090-24G", 1, 300, 420), run(34, "RTX4090-24G", 2, 540, 420)}}
	in := WindowInput{From: f.at(0), To: f.at(24 * 7), AsOf: f.in.AsOf, Projects: f.in.Projects, Allocations: f.allocs,
		Tasks: f.tasks, Readings: f.rollups.readings(), SpecOptions: options}
	r, err := Utilization(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Advice) != 0 {
		t.Fatalf("advice from readings alone = %+v, want none", r.Advice)
	}
	in.Trials = map[int64]rightsize.Tried{2: trial}
	if r, err = Utilization(in); err != nil {
		t.Fatal(err)
	}
	// Per sample: 2 × ¥4.20 / 540 a second against 2 × ¥15 / 720: 37 %; over 2 hours the
	// same samples cost 2 × (¥30 − ¥8.40 × 720/540) = ¥37.60 less.
	if len(r.Advice) != 1 || r.Advice[0].Advice.Spec != "RTX4090-24G" || r.Advice[0].Advice.TrialID != 7 ||
		r.Advice[0].Advice.CostPct != 37 || r.Advice[0].SavingFen != 3760 {
		t.Fatalf("advice with the trial = %+v, want 2 × RTX4090-24G from trial 7 at 37 %%, saving ¥37.60", r.Advice)
	}
	if got, want := AdviceText(r.Advice[0]), "full: 2 × RTX4090-24G instead of 2 × A100-80G, from trial #7"; got != want {
		t.Errorf("AdviceText = %q, want %q", got, want)
	}
}
