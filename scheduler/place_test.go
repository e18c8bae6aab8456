package scheduler

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestDecidePlacement(t *testing.T) {
	tests := map[string]struct {
		snap      snapB
		wantPlace map[int64][]int64
		wantWhy   map[int64]Reason
	}{
		"best fit takes the node with the fewest free cards that fit": {
			snap: snapshot(node(1, "A", 8), node(2, "A", 8), node(3, "A", 8)).
				run(running(90, gpus(1, 0, 3)...), running(91, gpus(3, 0, 5)...)).
				queue(pending(1).gpus(2).spec("A").ready()),
			wantPlace: map[int64][]int64{1: gpus(3, 6, 7)},
		},
		"best fit ties go to the lowest node id": {
			snap: snapshot(node(3, "A", 8), node(2, "A", 8)).
				queue(pending(1).gpus(8).spec("A").ready()),
			wantPlace: map[int64][]int64{1: gpus(2, 0, 7)},
		},
		"a task takes the lowest-index free cards and never a held one": {
			snap: snapshot(node(1, "A", 4)).
				run(running(90, gid(1, 0), gid(1, 2))).
				queue(pending(1).gpus(2).spec("A").ready()),
			wantPlace: map[int64][]int64{1: {gid(1, 1), gid(1, 3)}},
		},
		"a multi-GPU task sits on one node, never split": {
			snap: snapshot(node(1, "A", 4), node(2, "A", 4)).
				run(running(90, gpus(1, 0, 1)...), running(91, gpus(2, 0, 1)...)).
				queue(pending(1).gpus(4).spec("A").ready()),
			wantWhy: map[int64]Reason{1: ReasonNoFreeGPUs},
		},
		"queue order decides who gets the last node": {
			snap: snapshot(node(1, "A", 8)).
				queue(pending(2).gpus(8).spec("A").ready(), pending(1).gpus(8).spec("A").ready()),
			wantPlace: map[int64][]int64{1: gpus(1, 0, 7)},
			wantWhy:   map[int64]Reason{2: ReasonNoFreeGPUs},
		},
		"a task larger than a node takes whole free nodes, exactly its cards": {
			snap: snapshot(node(1, "A", 8), node(2, "A", 8), node(3, "A", 8), node(4, "A", 8)).
				run(running(90, gid(2, 0))).
				queue(pending(1).gpus(12).spec("A").ready()),
			wantPlace: map[int64][]int64{1: append(gpus(1, 0, 7), gpus(3, 0, 3)...)},
		},
		"the rest of a big task's last node stays free for others": {
			snap: snapshot(node(1, "A", 8), node(2, "A", 8)).
				queue(pending(1).gpus(12).spec("A").ready(), pending(2).gpus(4).spec("A").ready()),
			wantPlace: map[int64][]int64{1: append(gpus(1, 0, 7), gpus(2, 0, 3)...), 2: gpus(2, 4, 7)},
		},
		"a big task's last node is the smallest whole node that holds the rest": {
			snap: snapshot(node(1, "A", 4), node(2, "A", 8), node(3, "A", 2), node(4, "A", 8)).
				queue(pending(1).gpus(11).spec("A").ready()),
			wantPlace: map[int64][]int64{1: append(gpus(2, 0, 7), gpus(1, 0, 2)...)},
		},
		"a big task waits for whole nodes even with enough scattered cards": {
			snap: snapshot(node(1, "A", 8), node(2, "A", 8)).
				run(running(90, gid(1, 0)), running(91, gid(2, 0))).
				queue(pending(1).gpus(10).spec("A").ready()),
			wantWhy: map[int64]Reason{1: ReasonNoFreeGPUs},
		},
		"spec any goes to the best fit across specs": {
			snap: snapshot(node(1, "A", 8), node(2, "B", 4)).
				run(running(90, gid(2, 0))).
				queue(pending(1).gpus(2).ready()),
			wantPlace: map[int64][]int64{1: gpus(2, 1, 2)},
		},
		"spec any skips specs whose nodes are too small": {
			snap: snapshot(node(1, "A", 2), node(2, "B", 4)).
				queue(pending(1).gpus(3).ready()),
			wantPlace: map[int64][]int64{1: gpus(2, 0, 2)},
		},
		"a spec task stays on its spec": {
			snap: snapshot(node(1, "A", 8), node(2, "B", 8)).
				run(running(90, gpus(1, 0, 7)...)).
				queue(pending(1).gpus(1).spec("A").ready()),
			wantWhy: map[int64]Reason{1: ReasonNoFreeGPUs},
		},
		"draining and not-ready nodes take nothing": {
			snap: snapshot(draining(node(1, "A", 8)), node(2, "A", 2)).
				queue(pending(1).gpus(2).spec("A").ready(), pending(2).gpus(1).spec("A").ready()),
			wantPlace: map[int64][]int64{1: gpus(2, 0, 1)},
			wantWhy:   map[int64]Reason{2: ReasonNoFreeGPUs},
		},
		"capacity counts schedulable nodes only": {
			snap: snapshot(draining(node(1, "A", 8)), node(2, "A", 2)).
				queue(pending(1).gpus(4).spec("A").ready(), pending(2).gpus(1).spec("B").ready()),
			wantWhy: map[int64]Reason{1: ReasonNoSuchCapacity, 2: ReasonNoSuchCapacity},
		},
		"a task asking more than the pool ever gives does not block others": {
			snap: snapshot(node(1, "A", 8), node(2, "A", 8)).
				queue(pending(1).gpus(17).spec("A").ready(), pending(2).gpus(8).spec("A").ready()),
			wantPlace: map[int64][]int64{2: gpus(1, 0, 7)},
			wantWhy:   map[int64]Reason{1: ReasonNoSuchCapacity},
		},
		"a task asking for no GPU is invalid": {
			snap:    snapshot(node(1, "A", 8)).queue(pending(1).gpus(0).ready()),
			wantWhy: map[int64]Reason{1: ReasonInvalid},
		},
		"running tasks on unknown cards are ignored": {
			snap: snapshot(node(1, "A", 1)).
				run(running(90, 999)).
				queue(pending(1).ready()),
			wantPlace: map[int64][]int64{1: {gid(1, 0)}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := Decide(tc.snap.s, t0, DefaultPolicy(time.UTC))
			checkPlan(t, got, tc.wantPlace, tc.wantWhy)
		})
	}
}

func TestDecidePlacementFields(t *testing.T) {
	snap := snapshot(node(1, "A", 8), node(2, "A", 8), node(3, "B", 8)).
		queue(pending(1).gpus(12).spec("A").ready(), pending(2).gpus(3).ready())
	got := Decide(snap.s, t0, DefaultPolicy(time.UTC)).Placements
	want := []Placement{
		{TaskID: 1, Spec: "A", Why: WhyOnly, NodeIDs: []int64{1, 2}, GPUIDs: append(gpus(1, 0, 7), gpus(2, 0, 3)...)},
		{TaskID: 2, Spec: "A", Why: WhyFirstFree, NodeIDs: []int64{2}, GPUIDs: gpus(2, 4, 6)},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Decide(...).Placements = %v, want %v (-want +got):\n%s", got, want, diff)
	}
}
