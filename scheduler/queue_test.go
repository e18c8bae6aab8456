package scheduler

import (
	"kashi/models"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestNewQueueView(t *testing.T) {
	// One 8-card node, 6 cards held until t0+1h (expected) or t0+3h (latest). Task 1 (long, 2
	// cards) fits and starts; tasks 2 and 4 (short, 4 and 8 cards) wait for the running task,
	// yet come first as the short lane; task 3 (long) has no data and no ETA.
	snap := snapshot(node(1, "A100-80G", 8)).
		run(running(9, gpus(1, 0, 5)...).ends(time.Hour, 3*time.Hour)).
		queue(
			pending(1).gpus(2).ready().maxRun(10*time.Hour),
			pending(2).gpus(4).ready().short(time.Hour).est(2*time.Hour),
			pending(3).gpus(1).maxRun(time.Hour),
			pending(4).gpus(8).ready().short(30*time.Minute),
		).s
	pol := Policy{Backfill: true}
	plan := Decide(snap, t0, pol)
	v := NewQueueView(snap, plan, t0, pol)

	type row struct {
		ID       int64
		Lane     string
		Pos      int
		Reason   Reason
		Starting bool
		Known    bool // ETA p50 set
	}
	var got []row
	for _, e := range v.Entries {
		got = append(got, row{e.TaskID, e.Lane, e.Position, e.Reason, e.Starting, !e.ETAP50.IsZero()})
	}
	want := []row{
		{2, models.QueueShort, 1, ReasonNoFreeGPUs, false, true},
		{4, models.QueueShort, 2, ReasonNoFreeGPUs, false, true},
		{1, models.QueueLong, 0, ReasonStarting, true, true},
		{3, models.QueueLong, 1, ReasonDataNotReady, false, false},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("NewQueueView(...) entries mismatch (-want +got):\n%s", diff)
	}
	for _, e := range v.Entries {
		if e.Starting && (!e.ETAP50.Equal(t0) || !e.ETAP90.Equal(t0) || e.Spec != "A100-80G") {
			t.Errorf("starting entry %d: ETAs %v/%v spec %q, want t0 and A100-80G", e.TaskID, e.ETAP50, e.ETAP90, e.Spec)
		}
	}
	// Task 1 holds its 2 cards once placed: none is left for the next task.
	wantCap := []SpecCapacity{{Spec: "A100-80G", Total: 8, Held: 8}}
	if diff := cmp.Diff(wantCap, v.Capacity); diff != "" {
		t.Errorf("NewQueueView(...).Capacity mismatch (-want +got):\n%s", diff)
	}
}

func TestQueueEntryString(t *testing.T) {
	if got := (QueueEntry{Starting: true, Waiting: Waiting{Reason: ReasonStarting}}).String(); got != "starting: cards are free for it" {
		t.Errorf("String() = %q", got)
	}
	w := Waiting{Reason: ReasonDataNotReady}
	if got, want := (QueueEntry{Waiting: w}).String(), w.String(); got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}
