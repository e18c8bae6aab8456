package replay

import (
	"bytes"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/models"
)

// A deployment's history reads back as a trace: the same jobs, durations and groups, and what
// each task declared.
func TestWriteHistoryReadsBack(t *testing.T) {
	t0 := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	spans := []models.TaskSpan{
		{ID: 7, Project: "vision", Spec: "A100-80G", GPUs: 4, SubmittedAt: t0, StartedAt: t0.Add(time.Minute), EndedAt: t0.Add(time.Hour),
			EstGPUHours: 6, MaxRuntimeS: 7200, Queue: "long", Priority: "high"},
		{ID: 9, Project: "nlp", Spec: "", GPUs: 1, SubmittedAt: t0.Add(time.Second), StartedAt: t0.Add(time.Second), EndedAt: t0.Add(2 * time.Second)},
	}
	var buf bytes.Buffer
	if err := WriteHistory(&buf, spans); err != nil {
		t.Fatal(err)
	}
	tr, err := Read(&buf, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Jobs) != 2 || tr.Jobs[0].GPUs != 4 || tr.Jobs[0].Group != "vision" || tr.Jobs[1].Group != "nlp" {
		t.Fatalf("jobs = %+v", tr.Jobs)
	}
	// What the task declared reads back too: 6 card-hours on 4 cards is 1.5 h.
	if j := tr.Jobs[0]; j.Est != 5400 || j.MaxRuntime != 7200 || j.Queue != "long" || j.Priority != "high" {
		t.Errorf("declared = %+v, want est 5400 s, max runtime 7200 s, long, high", j)
	}
}

// A deployment's pipelines read back as pipelines: each stage's task names its stage and its
// parents' tasks, so that the replay of the history submits a stage only once its parent
// ended, and skips what follows a failed one.
func TestWriteHistoryKeepsPipelines(t *testing.T) {
	t0 := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	spans := []models.TaskSpan{
		{ID: 7, Project: "vision", GPUs: 1, SubmittedAt: at(0), StartedAt: at(0), EndedAt: at(600), State: "succeeded", Stage: "clean"},
		{ID: 8, Project: "vision", GPUs: 4, SubmittedAt: at(600), StartedAt: at(600), EndedAt: at(900), State: "failed", Stage: "train", Parents: []int64{7}},
		{ID: 9, Project: "vision", GPUs: 1, SubmittedAt: at(900), StartedAt: at(900), EndedAt: at(950), State: "succeeded", Stage: "eval", Parents: []int64{8}},
		{ID: 10, Project: "nlp", GPUs: 1, SubmittedAt: at(0), StartedAt: at(0), EndedAt: at(100), State: "succeeded"},
	}
	var buf bytes.Buffer
	if err := WriteHistory(&buf, spans); err != nil {
		t.Fatal(err)
	}
	tr, err := Read(&buf, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pipes := map[string]Pipe{}
	for _, j := range tr.Jobs {
		if j.Pipe != nil {
			pipes[j.ID] = *j.Pipe
		}
	}
	want := map[string]Pipe{"7": {Stage: "clean"}, "8": {Stage: "train", Parent: "7", Failed: true}, "9": {Stage: "eval", Parent: "8"}}
	if diff := cmp.Diff(want, pipes); diff != "" {
		t.Fatalf("pipelines read back (-want +got):\n%s", diff)
	}
	res := run(t, tr, Options{Policy: PolicyKashi, Fleet: FixedFleet(1, 8)})
	got := starts(t, res)
	if got["8"] < 600 {
		t.Errorf("train started at %d, before clean ended at 600", got["8"])
	}
	if _, ok := got["9"]; ok {
		t.Errorf("eval ran after train failed; want it skipped")
	}
}
