package scheduler

import (
	"kashi/models"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// queueOrder returns the indices of pending in queue order: lane (short first), priority
// (urgent first), fairness (lower decayed usage per share weight first), submit time, then id.
// It is the order Decide walks; gates and placement decide who actually starts.
func queueOrder(pending []Pending, projects map[string]Project, pol Policy) []int {
	pol = pol.normalized()
	q := buildQueue(pending, projects, &pol)
	out := make([]int, len(q.keys))
	for i, k := range q.keys {
		out[i] = int(k.idx)
	}
	return out
}

func TestOrder(t *testing.T) {
	tests := map[string]struct {
		snap snapB
		want []int64 // task ids in queue order
	}{
		"short lane before long, whatever the priority": {
			snap: snapshot().queue(pending(1).prio(models.PriorityUrgent), pending(2).short(time.Hour).prio(models.PriorityLow)),
			want: []int64{2, 1},
		},
		"priority within a lane": {
			snap: snapshot().queue(pending(1).prio(models.PriorityLow), pending(2), pending(3).prio(models.PriorityHigh),
				pending(4).prio(models.PriorityUrgent)),
			want: []int64{4, 3, 2, 1},
		},
		"an unknown priority counts as normal": {
			snap: snapshot().queue(pending(1).prio(models.PriorityLow), pending(2).prio("whenever"), pending(3).prio(models.PriorityHigh)),
			want: []int64{3, 2, 1},
		},
		"the lane is the one the task was submitted to": {
			snap: snapshot().queue(pending(1), pending(2).short(time.Hour), pending(3).short(2*time.Hour)),
			want: []int64{2, 3, 1},
		},
		"fairness: lower usage per share first": {
			snap: snapshot().
				queue(pending(1).project("heavy"), pending(2).project("light"), pending(3).project("big-share")).
				share("heavy", 1, 100).share("light", 1, 10).share("big-share", 20, 100),
			want: []int64{3, 2, 1},
		},
		"fairness: an unlisted project has no usage": {
			snap: snapshot().queue(pending(1).project("old"), pending(2).project("new")).share("old", 1, 1),
			want: []int64{2, 1},
		},
		"fairness: a zero share counts as one": {
			snap: snapshot().queue(pending(1).project("zero"), pending(2).project("two")).
				share("zero", 0, 10).share("two", 2, 30),
			want: []int64{1, 2},
		},
		"fairness comes after priority": {
			snap: snapshot().queue(pending(1).project("light"), pending(2).project("heavy").prio(models.PriorityHigh)).
				share("heavy", 1, 1000),
			want: []int64{2, 1},
		},
		"equal fairness falls back to submit time across projects": {
			snap: snapshot().queue(pending(1).project("b").submitted(t0),
				pending(2).project("a").submitted(t0.Add(time.Minute)),
				pending(3).project("c").submitted(t0.Add(-time.Minute))).
				share("a", 1, 10).share("b", 2, 20),
			want: []int64{3, 1, 2},
		},
		"a rerun heads its lane, before every priority and project": {
			snap: snapshot().queue(pending(1).prio(models.PriorityUrgent), pending(2).project("heavy").rerun(),
				pending(3).short(time.Hour), pending(4).rerun().prio(models.PriorityLow), pending(5).short(time.Hour).rerun()).
				share("heavy", 1, 1000),
			want: []int64{5, 3, 2, 4, 1},
		},
		"submit time then id": {
			snap: snapshot().queue(pending(5).submitted(t0), pending(4).submitted(t0.Add(time.Nanosecond)),
				pending(3).submitted(t0)),
			want: []int64{3, 5, 4},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			idx := queueOrder(tc.snap.s.Pending, tc.snap.s.Projects, Policy{})
			got := make([]int64, len(idx))
			for i, k := range idx {
				got[i] = tc.snap.s.Pending[k].ID
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("queueOrder(...) = %v, want %v (-want +got):\n%s", got, tc.want, diff)
			}
		})
	}
}

func TestDecideWaitingOrderAndPositions(t *testing.T) {
	// No capacity: everything waits, listed in queue order with a position per lane.
	snap := snapshot(node(1, "A", 1)).run(running(90, gid(1, 0))).queue(
		pending(1).ready(),
		pending(2).short(time.Hour).ready(),
		pending(3).prio(models.PriorityUrgent),
		pending(4).short(time.Hour).prio(models.PriorityHigh).ready(),
		pending(5).gpus(4).ready(),
	)
	got := Decide(snap.s, t0, DefaultPolicy(time.UTC)).Waiting
	type pos struct {
		ID       int64
		Lane     string
		Position int
	}
	var gotPos []pos
	for _, w := range got {
		gotPos = append(gotPos, pos{w.TaskID, w.Lane, w.Position})
	}
	want := []pos{{4, models.QueueShort, 1}, {2, models.QueueShort, 2}, {3, models.QueueLong, 1}, {1, models.QueueLong, 2}, {5, models.QueueLong, 3}}
	if diff := cmp.Diff(want, gotPos); diff != "" {
		t.Errorf("Decide(...).Waiting = %v, want %v (-want +got):\n%s", gotPos, want, diff)
	}
}

func TestDecideIsDeterministic(t *testing.T) {
	// The same queue in any input order gives the same plan.
	a := snapshot(node(1, "A", 4), node(2, "B", 4)).run(running(90, gid(1, 0)).ends(time.Hour, 2*time.Hour))
	b := a
	ts := []taskB{pending(1).gpus(2).ready(), pending(2).gpus(4).spec("A").ready(), pending(3).ready(),
		pending(4).gpus(3).spec("B").ready().submitted(t0.Add(-2 * time.Hour)), pending(5).gpus(4).ready()}
	a = a.queue(ts...)
	for i := len(ts) - 1; i >= 0; i-- {
		b = b.queue(ts[i])
	}
	pa, pb := Decide(a.s, t0, DefaultPolicy(time.UTC)), Decide(b.s, t0, DefaultPolicy(time.UTC))
	if diff := cmp.Diff(pa, pb); diff != "" {
		t.Errorf("Decide(reversed queue) = %v, want %v (-want +got):\n%s", pb, pa, diff)
	}
}
