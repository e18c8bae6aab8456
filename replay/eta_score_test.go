package replay

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestScoreETAs: each waiting task's first estimate against its actual wait, both from when
// the estimate was shown: within ±25 % of the wait, started by the p90, the median ratio; a
// task never estimated misses both; one not started is scored once its estimate has failed.
func TestScoreETAs(t *testing.T) {
	t0 := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	m := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Minute) }
	shown := []ETAShown{
		{At: t0, P50: m(10), P90: m(20), Start: m(9)},  // within (10 vs 9), by p90, ratio 1.11
		{At: t0, P50: m(10), P90: m(20), Start: m(30)}, // off (10 vs 30), late, ratio 0.33
		{At: t0, P50: m(40), P90: m(60), Start: m(10)}, // off (40 vs 10), by p90, ratio 4
		{At: t0, Start: m(5)},                          // never estimated: misses both
		{At: t0, P50: m(10), P90: m(20)},               // not started by m(40): both failed
		{At: t0, P50: m(100), P90: m(200)},             // not started by m(40): not decided yet
	}
	want := ETAScore{Tasks: 5, Unknown: 1, P50Within: 0.2, ByP90: 0.4, MedianRatio: 10.0 / 9}
	if diff := cmp.Diff(want, ScoreETAs(shown, m(40)), cmpopts.EquateApprox(0, 1e-9)); diff != "" {
		t.Errorf("ScoreETAs (-want +got):\n%s", diff)
	}
	if got := ScoreETAs(nil, t0); got != (ETAScore{}) {
		t.Errorf("ScoreETAs(nil) = %+v, want zero", got)
	}
}

// TestETAGoalsOnOpenb: replaying the openb trace on a fleet where its jobs queue (3 × 8
// cards; they wait 70 minutes on average), the estimates the queue shows meet the goals:
// the first p50 within ±25 % of the actual wait for at least 70 % of the jobs that waited,
// and at least 95 % started by their first p90. The replay is deterministic.
func TestETAGoalsOnOpenb(t *testing.T) {
	res := run(t, openb(t), Options{Fleet: FixedFleet(3, 8)})
	t.Logf("estimates of %d waiting jobs: %+v", res.ETA.Tasks, res.ETA)
	if res.ETA.Tasks < 150 {
		t.Fatalf("only %d jobs waited; the fleet should queue them", res.ETA.Tasks)
	}
	if res.ETA.P50Within < 0.70 || res.ETA.ByP90 < 0.95 {
		t.Errorf("estimates: first p50 within ±25 %% for %.0f %% (goal ≥ 70 %%), started by p90 %.0f %% (goal ≥ 95 %%)",
			100*res.ETA.P50Within, 100*res.ETA.ByP90)
	}
}

// TestReadDeclaredColumns: what a task declared (its estimate, max runtime, lane and priority)
// is read when the trace has it, empty for nothing; a lane or priority Kashi does not know,
// or an estimate that is no duration, skips the row.
func TestReadDeclaredColumns(t *testing.T) {
	in := "job_id,submit_ts,gpus,duration_s,est_s,max_runtime_s,queue,priority\n" +
		"a,1,1,60,50,120,short,high\n" +
		"b,2,2,60,,,,\n" +
		"c,3,1,60,x,,,\n" +
		"d,4,1,60,,,fast,\n" +
		"e,5,1,60,,,,soon\n"
	tr, err := Read(strings.NewReader(in), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Job{
		{ID: "a", Row: 1, Submit: 1, Duration: 60, GPUs: 1, Est: 50, MaxRuntime: 120, Queue: "short", Priority: "high"},
		{ID: "b", Row: 2, Submit: 2, Duration: 60, GPUs: 2},
	}
	if diff := cmp.Diff(want, tr.Jobs); diff != "" || tr.Skipped[SkipUnparsable] != 3 {
		t.Errorf("jobs (-want +got):\n%s; skipped %v", diff, tr.Skipped)
	}
}

// TestDeclaredEstimatesAndQuotas: with --estimates declared a task queues in the lane it
// declared and is estimated by what it declared; a project's quota holds its jobs back as
// the server's would, and a job larger than the quota is left out.
func TestDeclaredEstimatesAndQuotas(t *testing.T) {
	// Two 4-card jobs of vision, whose quota is 4 cards: the second waits for the first,
	// which declared 30 minutes and ran 40; the third asks more than the quota ever allows.
	tr, err := Read(strings.NewReader("job_id,submit_ts,gpus,duration_s,group,est_s,max_runtime_s\n"+
		"a,0,4,2400,vision,1800,3600\nb,0,4,600,vision,600,1200\nc,0,8,60,vision,,\n"), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fleet := FixedFleet(2, 8)
	fleet.Quotas = []Quota{{Project: "vision", MaxGPUs: 4}}
	res := run(t, tr, Options{Fleet: fleet, Estimates: EstimatesDeclared})
	if res.Jobs != 2 || res.Skipped[SkipOverQuota] != 1 || res.WaitS.Max != 2400 {
		t.Fatalf("jobs %d, skipped %v, waits %+v; want 2 jobs, one over the quota, the second waiting 2400 s",
			res.Jobs, res.Skipped, res.WaitS)
	}
	// The waiting job was shown the first job's declared end (1800 s) and its max runtime (3600 s).
	if want := (ETAScore{Tasks: 1, P50Within: 1, ByP90: 1, MedianRatio: 0.75}); res.ETA != want {
		t.Errorf("ETA score = %+v, want %+v", res.ETA, want)
	}
}
