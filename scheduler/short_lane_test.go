package scheduler

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func shortOnly(n Node) Node { n.ShortOnly = true; return n }

func TestDecideShortLaneReserve(t *testing.T) {
	tests := map[string]struct {
		snap      snapB
		wantPlace map[int64][]int64
		wantWhy   map[int64]Reason
	}{
		"a long task never takes a short-only node, a short one does": {
			snap: snapshot(node(1, "A", 8), shortOnly(node(2, "A", 8))).
				queue(pending(1).gpus(8).spec("A").ready(), pending(2).gpus(8).spec("A").ready(),
					pending(3).gpus(8).spec("A").short(time.Hour).ready()),
			wantPlace: map[int64][]int64{1: gpus(1, 0, 7), 3: gpus(2, 0, 7)},
			wantWhy:   map[int64]Reason{2: ReasonNoFreeGPUs},
		},
		"best fit for a long task skips a fuller short-only node": {
			snap: snapshot(node(1, "A", 8), shortOnly(node(2, "A", 8))).
				run(running(90, gpus(2, 0, 5)...)).
				queue(pending(1).gpus(2).spec("A").ready()),
			wantPlace: map[int64][]int64{1: gpus(1, 0, 1)},
		},
		"a long task larger than the nodes left to it has no capacity": {
			snap: snapshot(node(1, "A", 8), shortOnly(node(2, "A", 8))).
				queue(pending(1).gpus(16).spec("A").ready(), pending(2).gpus(16).spec("A").short(time.Hour).ready()),
			wantPlace: map[int64][]int64{2: append(gpus(1, 0, 7), gpus(2, 0, 7)...)},
			wantWhy:   map[int64]Reason{1: ReasonNoSuchCapacity},
		},
		"a spec-any long task takes another spec's node": {
			snap: snapshot(shortOnly(node(1, "A", 8)), node(2, "B", 8)).
				queue(pending(1).gpus(4).ready()),
			wantPlace: map[int64][]int64{1: gpus(2, 0, 3)},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := Decide(tc.snap.s, t0, DefaultPolicy(time.UTC))
			checkPlan(t, got, tc.wantPlace, tc.wantWhy)
			for _, r := range got.Reservations {
				for _, n := range r.Nodes {
					if n.NodeID == 2 && r.TaskID == 1 {
						t.Errorf("long task 1 holds a reservation on short-only node 2")
					}
				}
			}
		})
	}
}

func TestMarkShortOnly(t *testing.T) {
	nodes := []Node{
		{ID: 1, Pool: "a", Schedulable: true}, {ID: 4, Pool: "a", Schedulable: true}, {ID: 3, Pool: "a", Schedulable: true},
		{ID: 9, Pool: "a"}, {ID: 5, Pool: "b", Schedulable: true}, {ID: 6, Pool: "c", Schedulable: true},
	}
	MarkShortOnly(nodes, map[string]int{"a": 2, "b": 5})
	var got []int64
	for _, n := range nodes {
		if n.ShortOnly {
			got = append(got, n.ID)
		}
	}
	// Pool a: the two highest ready ids (9 is not schedulable); b: all it has; c: none.
	if diff := cmp.Diff([]int64{4, 3, 5}, got); diff != "" {
		t.Errorf("MarkShortOnly: short-only nodes (-want +got):\n%s", diff)
	}
}
