package scheduler

import (
	"kashi/models"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestDecideBackfill(t *testing.T) {
	h := time.Hour
	// busy6 holds cards 0–5 of node 1 until t0+2h expected, t0+4h at the latest.
	busy6 := running(90, gpus(1, 0, 5)...).ends(2*h, 4*h)
	tests := map[string]struct {
		snap      snapB
		noBackill bool
		wantPlace map[int64][]int64
		wantWhy   map[int64]Reason
		wantAhead map[int64]int64
	}{
		"a later task that ends before the reservation starts": {
			snap: snapshot(node(1, "A", 8)).run(busy6).
				queue(pending(1).gpus(8).spec("A").ready(), pending(2).gpus(2).maxRun(h).ready()),
			wantPlace: map[int64][]int64{2: gpus(1, 6, 7)},
			wantWhy:   map[int64]Reason{1: ReasonNoFreeGPUs},
		},
		"a later task that would delay the head waits behind it": {
			snap: snapshot(node(1, "A", 8)).run(busy6).
				queue(pending(1).gpus(8).spec("A").ready(), pending(2).gpus(2).maxRun(3*h).ready(),
					pending(3).gpus(1).ready(), pending(4).gpus(1).maxRun(2*h).ready()),
			wantPlace: map[int64][]int64{4: {gid(1, 6)}},
			wantWhy:   map[int64]Reason{1: ReasonNoFreeGPUs, 2: ReasonBehind, 3: ReasonBehind},
			wantAhead: map[int64]int64{2: 1, 3: 1},
		},
		"a later task that fits in the spare cards starts": {
			// Head needs 7 of the 8 cards free at t0+2h: 1 spare.
			snap: snapshot(node(1, "A", 8)).run(busy6).
				queue(pending(1).gpus(7).spec("A").ready(), pending(2).gpus(2).ready(),
					pending(3).gpus(1).ready(), pending(4).gpus(1).ready()),
			wantPlace: map[int64][]int64{3: {gid(1, 6)}},
			wantWhy:   map[int64]Reason{1: ReasonNoFreeGPUs, 2: ReasonBehind, 4: ReasonBehind},
			wantAhead: map[int64]int64{2: 1, 4: 1},
		},
		"a later task on a node the reservation does not need starts": {
			snap: snapshot(node(1, "A", 8), node(2, "A", 8)).
				run(busy6, running(91, gpus(2, 0, 6)...).ends(5*h, 6*h)).
				queue(pending(1).gpus(8).spec("A").ready(), pending(2).gpus(1).ready(),
					pending(3).gpus(2).ready()),
			wantPlace: map[int64][]int64{2: {gid(2, 7)}},
			wantWhy:   map[int64]Reason{1: ReasonNoFreeGPUs, 3: ReasonBehind},
			wantAhead: map[int64]int64{3: 1},
		},
		"a task with no max runtime never ends before a reservation": {
			snap: snapshot(node(1, "A", 8)).run(busy6).
				queue(pending(1).gpus(8).spec("A").ready(), pending(2).gpus(1).est(time.Minute).ready()),
			wantWhy:   map[int64]Reason{1: ReasonNoFreeGPUs, 2: ReasonBehind},
			wantAhead: map[int64]int64{2: 1},
		},
		"without backfill nothing behind the head starts on its spec": {
			snap: snapshot(node(1, "A", 8), node(2, "B", 1)).run(busy6).
				queue(pending(1).gpus(8).spec("A").ready(), pending(2).gpus(1).maxRun(time.Minute).ready(),
					pending(3).spec("B").ready()),
			noBackill: true,
			wantPlace: map[int64][]int64{2: {gid(2, 0)}},
			wantWhy:   map[int64]Reason{1: ReasonNoFreeGPUs, 3: ReasonNoFreeGPUs},
		},
		"a head on one spec does not hold back another spec": {
			snap: snapshot(node(1, "A", 8), node(2, "B", 8)).run(busy6).
				queue(pending(1).gpus(8).spec("A").ready(), pending(2).gpus(8).spec("B").ready()),
			wantPlace: map[int64][]int64{2: gpus(2, 0, 7)},
			wantWhy:   map[int64]Reason{1: ReasonNoFreeGPUs},
		},
		"a task blocked by capacity alone is not behind": {
			snap: snapshot(node(1, "A", 8)).run(busy6).
				queue(pending(1).gpus(8).spec("A").ready(), pending(2).gpus(4).spec("A").ready()),
			wantWhy: map[int64]Reason{1: ReasonNoFreeGPUs, 2: ReasonNoFreeGPUs},
		},
		"higher priority goes first, and backfill does not starve it": {
			snap: snapshot(node(1, "A", 8)).run(busy6).
				queue(pending(1).gpus(1).maxRun(5*h).ready(), pending(2).gpus(8).prio(models.PriorityHigh).ready()),
			wantWhy:   map[int64]Reason{1: ReasonBehind, 2: ReasonNoFreeGPUs},
			wantAhead: map[int64]int64{1: 2},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			pol := DefaultPolicy(time.UTC)
			pol.Backfill = !tc.noBackill
			got := Decide(tc.snap.s, t0, pol)
			checkPlan(t, got, tc.wantPlace, tc.wantWhy)
			gotAhead := map[int64]int64{}
			for _, w := range got.Waiting {
				if w.Ahead != 0 {
					gotAhead[w.TaskID] = w.Ahead
				}
			}
			if tc.wantAhead == nil {
				tc.wantAhead = map[int64]int64{}
			}
			if diff := cmp.Diff(tc.wantAhead, gotAhead); diff != "" {
				t.Errorf("Decide(...) ahead = %v, want %v (-want +got):\n%s", gotAhead, tc.wantAhead, diff)
			}
		})
	}
}

func TestDecideReservations(t *testing.T) {
	h := time.Hour
	tests := map[string]struct {
		snap snapB
		want []Reservation
	}{
		"one node: where the cards come free first, with its spare": {
			snap: snapshot(node(1, "A", 8), node(2, "A", 8)).
				run(running(90, gpus(1, 0, 5)...).ends(3*h, 4*h),
					running(91, gpus(2, 0, 3)...).ends(h, 4*h),
					running(92, gpus(2, 4, 6)...).ends(2*h, 4*h)).
				queue(pending(1).gpus(5).spec("A").ready(), pending(2).gpus(4).spec("A").ready()),
			want: []Reservation{{TaskID: 1, Spec: "A", At: t0.Add(h),
				Nodes: []ReservedNode{{NodeID: 2, GPUs: 5, Spare: 0}}}},
		},
		"one node: spare counts every card free by then": {
			snap: snapshot(node(1, "A", 8)).
				run(running(90, gpus(1, 0, 3)...).ends(h, 4*h), running(91, gpus(1, 4, 7)...).ends(h, 4*h)).
				queue(pending(1).gpus(2).spec("A").ready()),
			want: []Reservation{{TaskID: 1, Spec: "A", At: t0.Add(h),
				Nodes: []ReservedNode{{NodeID: 1, GPUs: 2, Spare: 6}}}},
		},
		"a task outliving its estimate is expected at its max runtime": {
			snap: snapshot(node(1, "A", 2)).
				run(running(90, gpus(1, 0, 1)...).started(t0.Add(-3 * h)).est(h).maxRun(5 * h)).
				queue(pending(1).gpus(2).ready()),
			want: []Reservation{{TaskID: 1, Spec: "A", At: t0.Add(2 * h),
				Nodes: []ReservedNode{{NodeID: 1, GPUs: 2}}}},
		},
		"a task without an estimate is expected at its max runtime": {
			snap: snapshot(node(1, "A", 2)).
				run(running(90, gpus(1, 0, 1)...).maxRun(3 * h)).
				queue(pending(1).gpus(2).ready()),
			want: []Reservation{{TaskID: 1, Spec: "A", At: t0.Add(2 * h),
				Nodes: []ReservedNode{{NodeID: 1, GPUs: 2}}}},
		},
		"a card with no expected end gives an unknown time": {
			snap: snapshot(node(1, "A", 2)).
				run(running(90, gpus(1, 0, 1)...)).
				queue(pending(1).gpus(2).ready()),
			want: []Reservation{{TaskID: 1, Spec: "A", Nodes: []ReservedNode{{NodeID: 1, GPUs: 2}}}},
		},
		"whole nodes in the order they become wholly free": {
			snap: snapshot(node(1, "A", 8), node(2, "A", 8), node(3, "A", 8)).
				run(running(90, gid(1, 0)).ends(h, 2*h), running(91, gid(2, 0)).ends(3*h, 4*h),
					running(92, gpus(3, 0, 7)...).ends(2*h, 4*h)).
				queue(pending(1).gpus(12).spec("A").ready(), pending(2).gpus(1).ready()),
			want: []Reservation{{TaskID: 1, Spec: "A", At: t0.Add(2 * h),
				Nodes: []ReservedNode{{NodeID: 1, GPUs: 8}, {NodeID: 3, GPUs: 4}}}},
		},
		"one head per spec": {
			snap: snapshot(node(1, "A", 1), node(2, "B", 1)).
				run(running(90, gid(1, 0)).ends(h, h), running(91, gid(2, 0)).ends(2*h, 2*h)).
				queue(pending(1).spec("A").ready(), pending(2).spec("A").ready(), pending(3).spec("B").ready()),
			want: []Reservation{
				{TaskID: 1, Spec: "A", At: t0.Add(h), Nodes: []ReservedNode{{NodeID: 1, GPUs: 1}}},
				{TaskID: 3, Spec: "B", At: t0.Add(2 * h), Nodes: []ReservedNode{{NodeID: 2, GPUs: 1}}},
			},
		},
		"a spec-any head reserves where its cards come free first": {
			snap: snapshot(node(1, "A", 1), node(2, "B", 1)).
				run(running(90, gid(1, 0)).ends(2*h, 2*h), running(91, gid(2, 0)).ends(h, h)).
				queue(pending(1).ready()),
			want: []Reservation{{TaskID: 1, Spec: "B", At: t0.Add(h), Nodes: []ReservedNode{{NodeID: 2, GPUs: 1}}}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := Decide(tc.snap.s, t0, DefaultPolicy(time.UTC))
			if diff := cmp.Diff(tc.want, got.Reservations); diff != "" {
				t.Errorf("Decide(...).Reservations = %v, want %v (-want +got):\n%s", got.Reservations, tc.want, diff)
			}
			for _, r := range tc.want {
				if w := waitingOf(got, r.TaskID); !w.Head {
					t.Errorf("Decide(...) waiting %d = %+v, want Head", r.TaskID, w)
				}
			}
		})
	}
}

func TestDecideBackfillPlacesAroundWholeNodeReservation(t *testing.T) {
	h := time.Hour
	snap := snapshot(node(1, "A", 8), node(2, "A", 8), node(3, "A", 8)).
		run(running(90, gid(1, 0)).ends(h, 2*h), running(91, gid(2, 0)).ends(3*h, 4*h),
			running(92, gpus(3, 0, 7)...).ends(2*h, 4*h)).
		queue(pending(1).gpus(12).spec("A").ready(), pending(2).gpus(1).ready(),
			pending(3).gpus(7).maxRun(h).ready())
	got := Decide(snap.s, t0, DefaultPolicy(time.UTC))
	// Task 2 runs long: not on reserved node 1 (best fit tie, lowest id), so on node 2. Task 3
	// ends before t0+2h, so reserved node 1 is fine.
	want := []Placement{
		{TaskID: 2, Spec: "A", Why: WhyOnly, NodeIDs: []int64{2}, GPUIDs: []int64{gid(2, 1)}, Backfill: true},
		{TaskID: 3, Spec: "A", Why: WhyOnly, NodeIDs: []int64{1}, GPUIDs: gpus(1, 1, 7), Backfill: true},
	}
	if diff := cmp.Diff(want, got.Placements); diff != "" {
		t.Errorf("Decide(...).Placements = %v, want %v (-want +got):\n%s", got.Placements, want, diff)
	}
}
