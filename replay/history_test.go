package replay

import (
	"bytes"
	"testing"
	"time"

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
