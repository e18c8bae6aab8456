package scheduler

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// linked states a network between nodes of gbps for n's pool; unlinked states none.
func linked(gbps int, n Node) Node { n.InterNodeGbps = gbps; return n }
func unlinked(n Node) Node         { n.NoInterNode = true; return n }

// reads states n's pool's storage throughput.
func reads(mbps int, n Node) Node { n.StorageMBps = mbps; return n }

func (b taskB) minInter(gbps int) taskB    { b.p.MinInterNodeGbps = gbps; return b }
func (b taskB) minStorage(mbps int) taskB  { b.p.MinStorageMBps = mbps; return b }
func (b taskB) allowNoInterconnect() taskB { b.p.AllowNoInterconnect = true; return b }

func TestDecidePlaceAttributes(t *testing.T) {
	rtx := func(id int64) Node { return unlinked(node(id, "RTX", 8)) }
	a100 := func(id int64) Node { return linked(800, node(id, "A100", 8)) }
	tests := map[string]struct {
		snap       snapB
		wantPlace  map[int64][]int64
		wantWhy    map[int64]Reason
		wantDetail map[int64]string
	}{
		"larger than a node, no network between nodes: waits, naming it": {
			snap:       snapshot(rtx(1), rtx(2)).queue(pending(1).gpus(16).spec("RTX").ready()),
			wantWhy:    map[int64]Reason{1: ReasonNoSuitablePlace},
			wantDetail: map[int64]string{1: DetailNoInterconnect},
		},
		"larger than a node, allowed without a network: runs": {
			snap:      snapshot(rtx(1), rtx(2)).queue(pending(1).gpus(16).spec("RTX").allowNoInterconnect().ready()),
			wantPlace: map[int64][]int64{1: append(gpus(1, 0, 7), gpus(2, 0, 7)...)},
		},
		"one node's worth on a pool without a network: runs": {
			snap:      snapshot(rtx(1), rtx(2)).queue(pending(1).gpus(8).spec("RTX").ready()),
			wantPlace: map[int64][]int64{1: gpus(1, 0, 7)},
		},
		"any spec: across nodes only where there is a network": {
			// Without the rule it would take the RTX nodes: the spec with the fewest whole
			// free cards.
			snap:      snapshot(rtx(1), rtx(2), a100(3), a100(4), a100(5)).queue(pending(1).gpus(16).ready()),
			wantPlace: map[int64][]int64{1: append(gpus(3, 0, 7), gpus(4, 0, 7)...)},
		},
		"one spec, two pools: across nodes on the one with a network": {
			snap: snapshot(rtx(1), rtx(2), linked(200, node(3, "RTX", 8)), linked(200, node(4, "RTX", 8))).
				queue(pending(1).gpus(16).spec("RTX").ready()),
			wantPlace: map[int64][]int64{1: append(gpus(3, 0, 7), gpus(4, 0, 7)...)},
		},
		"unstated pools judge nothing": {
			snap:      snapshot(node(1, "RTX", 8), node(2, "RTX", 8)).queue(pending(1).gpus(16).spec("RTX").ready()),
			wantPlace: map[int64][]int64{1: append(gpus(1, 0, 7), gpus(2, 0, 7)...)},
		},
		"inter-node minimum met": {
			snap:      snapshot(a100(1)).queue(pending(1).gpus(2).spec("A100").minInter(800).ready()),
			wantPlace: map[int64][]int64{1: gpus(1, 0, 1)},
		},
		"inter-node minimum above what the pool states, or it states nothing": {
			snap: snapshot(a100(1), node(2, "H100", 8)).
				queue(pending(1).gpus(2).spec("A100").minInter(801).ready(), pending(2).gpus(2).spec("H100").minInter(1).ready()),
			wantWhy:    map[int64]Reason{1: ReasonNoSuitablePlace, 2: ReasonNoSuitablePlace},
			wantDetail: map[int64]string{1: DetailInterNodeBelow, 2: DetailInterNodeBelow},
		},
		"minimums where no pool states anything: none is met": {
			snap:       snapshot(node(1, "A100", 8)).queue(pending(1).gpus(2).minStorage(100).ready(), pending(2).minInter(1).ready()),
			wantWhy:    map[int64]Reason{1: ReasonNoSuitablePlace, 2: ReasonNoSuitablePlace},
			wantDetail: map[int64]string{1: DetailStorageBelow, 2: DetailInterNodeBelow},
		},
		"storage minimum: only where the pool reads fast enough": {
			snap: snapshot(reads(1000, node(1, "A100", 8)), reads(4000, node(2, "A100", 8))).
				queue(pending(1).gpus(8).spec("A100").minStorage(2000).ready(), pending(2).gpus(1).spec("A100").minStorage(5000).ready()),
			wantPlace:  map[int64][]int64{1: gpus(2, 0, 7)},
			wantWhy:    map[int64]Reason{2: ReasonNoSuitablePlace},
			wantDetail: map[int64]string{2: DetailStorageBelow},
		},
		"the first lack in order is named": {
			snap:       snapshot(reads(100, rtx(1)), reads(100, rtx(2))).queue(pending(1).gpus(16).spec("RTX").minStorage(500).ready()),
			wantWhy:    map[int64]Reason{1: ReasonNoSuitablePlace},
			wantDetail: map[int64]string{1: DetailNoInterconnect},
		},
		"a place that lacks nothing but is busy: waits for cards, not for the place": {
			snap: snapshot(rtx(1), rtx(2), a100(3), a100(4)).
				run(running(90, gid(3, 0))).
				queue(pending(1).gpus(16).ready()),
			wantWhy: map[int64]Reason{1: ReasonNoFreeGPUs},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := Decide(tc.snap.s, t0, DefaultPolicy(time.UTC))
			checkPlan(t, got, tc.wantPlace, tc.wantWhy)
			details := map[int64]string{}
			for _, w := range got.Waiting {
				if w.Reason == ReasonNoSuitablePlace {
					details[w.TaskID] = w.Detail
				}
			}
			if tc.wantDetail == nil {
				tc.wantDetail = map[int64]string{}
			}
			if diff := cmp.Diff(tc.wantDetail, details); diff != "" {
				t.Errorf("Decide(...) details (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNoSuitablePlaceSays: the reason's sentence names the spec and what its pools lack.
func TestNoSuitablePlaceSays(t *testing.T) {
	got := Decide(snapshot(unlinked(node(1, "RTX", 8))).queue(pending(1).gpus(16).spec("RTX").ready()).s, t0, DefaultPolicy(time.UTC))
	w := waitingOf(got, 1)
	if want := "larger than a node, and the RTX pools have no network between nodes"; w.String() != want {
		t.Errorf("Waiting.String() = %q, want %q", w.String(), want)
	}
	if w.Spec != "RTX" || w.ETAP50 != (time.Time{}) {
		t.Errorf("Waiting = %+v, want spec RTX and no ETA", w)
	}
	got = Decide(snapshot(node(1, "RTX", 8)).queue(pending(1).minStorage(100).ready()).s, t0, DefaultPolicy(time.UTC))
	if w, want := waitingOf(got, 1), "the pools it may use state less storage throughput than it asks"; w.String() != want {
		t.Errorf("Waiting.String() = %q, want %q", w.String(), want)
	}
}
