package replay

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func readTrace(t *testing.T, s string) *Trace {
	t.Helper()
	tr, err := Read(strings.NewReader(s), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// starts maps each replayed job to its start.
func starts(t *testing.T, res *Result) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, r := range jobRows(t, res) {
		out[r.id] = r.start
	}
	return out
}

// TestPipelineChildStartsAfterParent: a job with a parent is submitted only once the parent
// ended successfully (never holding cards before), at its own submit_ts if that is later;
// a job with two parents waits for both; a job outside the pipeline is not held.
func TestPipelineChildStartsAfterParent(t *testing.T) {
	tr := readTrace(t, `job_id,submit_ts,gpus,duration_s,stage,parent,status
clean,0,1,600,clean,,Succeeded
train,0,4,300,train,clean,Succeeded
side,0,1,1000,,,
eval,100,1,50,eval,train;side,
late,2000,1,10,report,clean,
`)
	want := map[string]int64{"clean": 0, "side": 0, "train": 600, "eval": 1000, "late": 2000}
	for _, pol := range []string{PolicyKashi, PolicyFIFO} {
		res := run(t, tr, Options{Policy: pol, Fleet: FixedFleet(1, 8)})
		if diff := cmp.Diff(want, starts(t, res)); diff != "" {
			t.Errorf("%s: starts (-want +got):\n%s", pol, diff)
		}
		for _, r := range jobRows(t, res) {
			if r.id == "eval" && r.submit != 1000 {
				t.Errorf("%s: eval submitted at %d, want 1000 (when its last parent ended)", pol, r.submit)
			}
		}
		if res.WaitS.Max != 0 {
			t.Errorf("%s: a job waited %d s in the queue; a stage waiting on its parent is not queued", pol, res.WaitS.Max)
		}
		if got := res.GPUHoursByStage["train"]; got != Hours(4*300) {
			t.Errorf("%s: train stage %s GPU-hours, want %s", pol, got, Hours(4*300))
		}
	}
}

// TestPipelineFailedParentSkipsChildren: a parent whose status is an unsuccessful end runs
// for its duration, then its children and theirs are skipped (parent_failed); a parent
// missing from the trace or a cycle leaves its jobs out too, each counted by cause.
func TestPipelineFailedParentSkipsChildren(t *testing.T) {
	tr := readTrace(t, `job_id,submit_ts,gpus,duration_s,parent,status
clean,0,1,600,,FAILED
train,0,1,300,clean,
eval,0,1,300,train,
other,0,1,60,,
a,0,1,60,b,
b,0,1,60,a,
c,0,1,60,nowhere,
d,0,1,60,c,
`)
	for _, pol := range []string{PolicyKashi, PolicyFIFO} {
		res := run(t, tr, Options{Policy: pol, Fleet: FixedFleet(1, 8)})
		if res.Jobs != 2 {
			t.Errorf("%s: %d jobs replayed, want 2 (clean, other)", pol, res.Jobs)
		}
		want := map[string]int{SkipParentFailed: 2, SkipParentCycle: 2, SkipParentMissing: 2}
		if diff := cmp.Diff(want, res.Skipped); diff != "" {
			t.Errorf("%s: skipped (-want +got):\n%s", pol, diff)
		}
		if diff := cmp.Diff(map[string]int64{"clean": 0, "other": 0}, starts(t, res)); diff != "" {
			t.Errorf("%s: starts (-want +got):\n%s", pol, diff)
		}
	}
}

// TestReadPipelineColumns: parent lists job_ids separated by ';' (spaces trimmed), an empty
// id in it makes the row unparsable; status marks an unsuccessful end in any case. A trace
// without these columns keeps no pipeline on its jobs.
func TestReadPipelineColumns(t *testing.T) {
	tr := readTrace(t, `job_id,submit_ts,gpus,duration_s,stage,parent,status
a,0,1,1,clean,,Timed_Out
b,1,1,1,train, a ; x ,running
c,2,1,1,eval,a;;b,
`)
	got := map[string]Pipe{}
	for _, j := range tr.Jobs {
		got[j.ID] = *j.Pipe
	}
	want := map[string]Pipe{"a": {Stage: "clean", Failed: true}, "b": {Stage: "train", Parent: "a;x"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("jobs (-want +got):\n%s", diff)
	}
	if tr.Skipped[SkipUnparsable] != 1 {
		t.Errorf("skipped %v, want c unparsable", tr.Skipped)
	}
	for _, j := range readTrace(t, "job_id,submit_ts,gpus,duration_s,status\na,0,1,1,failed\n").Jobs {
		if j.Pipe != nil {
			t.Errorf("job %s of a trace without pipelines has %+v", j.ID, *j.Pipe)
		}
	}
}
