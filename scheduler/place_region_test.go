package scheduler

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// in puts a node in region r.
func in(r string, n Node) Node {
	n.Region = r
	n.Pool += "-" + r
	return n
}

func (b taskB) specs(s ...string) taskB   { b.p.Specs = s; return b }
func (b taskB) regions(r ...string) taskB { b.p.Regions = r; return b }
func (b taskB) data(r string) taskB       { b.p.DataRegion = r; return b }

// where is where each task starts or is expected to start, and why.
func where(p Plan) map[int64]string {
	m := map[int64]string{}
	for _, pl := range p.Placements {
		m[pl.TaskID] = "now " + pl.Spec + "@" + pl.Region + " " + pl.Why
	}
	for _, w := range p.Waiting {
		if w.PlaceSpec != "" {
			m[w.TaskID] = "wait " + w.PlaceSpec + "@" + w.PlaceRegion + " " + w.PlaceWhy
		}
	}
	return m
}

func TestDecideSpecsAndRegions(t *testing.T) {
	h := time.Hour
	tests := map[string]struct {
		snap      snapB
		wantPlace map[int64][]int64
		wantWhy   map[int64]Reason
		wantWhere map[int64]string
	}{
		"several specs: placed where cards are free": {
			snap: snapshot(node(1, "A", 8), node(2, "B", 8), node(3, "C", 8)).
				run(running(90, gpus(1, 0, 7)...).ends(h, 2*h)).
				queue(pending(1).gpus(4).specs("A", "B").ready()),
			wantPlace: map[int64][]int64{1: gpus(2, 0, 3)},
			wantWhere: map[int64]string{1: "now B@ first-free"},
		},
		"several specs: never on one it does not accept": {
			snap: snapshot(node(1, "A", 8), node(2, "C", 8)).
				run(running(90, gpus(1, 0, 7)...).ends(h, 2*h)).
				queue(pending(1).gpus(4).specs("A", "B").ready()),
			wantWhy:   map[int64]Reason{1: ReasonNoFreeGPUs},
			wantWhere: map[int64]string{1: "wait A@ only"},
		},
		"several specs, none in the fleet": {
			snap:    snapshot(node(1, "A", 8)).queue(pending(1).specs("X", "Y").ready()),
			wantWhy: map[int64]Reason{1: ReasonNoSuchCapacity},
		},
		"regions: only the regions it accepts": {
			snap: snapshot(in("east", node(1, "A", 8)), in("west", node(2, "A", 8))).
				run(running(90, gpus(1, 0, 7)...).ends(h, 2*h)).
				queue(pending(1).gpus(2).spec("A").regions("east").ready(), pending(2).gpus(2).spec("A").ready()),
			wantPlace: map[int64][]int64{2: gpus(2, 0, 1)},
			wantWhy:   map[int64]Reason{1: ReasonNoFreeGPUs},
			wantWhere: map[int64]string{1: "wait A@east only", 2: "now A@west first-free"},
		},
		"data region first when cards are free there": {
			snap: snapshot(in("east", node(1, "A", 8)), in("west", node(2, "A", 4))).
				queue(pending(1).gpus(4).spec("A").data("east").ready()),
			// Best fit alone would take the 4-card node in the west.
			wantPlace: map[int64][]int64{1: gpus(1, 0, 3)},
			wantWhere: map[int64]string{1: "now A@east data-region"},
		},
		"data region full: where it starts first": {
			snap: snapshot(in("east", node(1, "A", 8)), in("west", node(2, "B", 8))).
				run(running(90, gpus(1, 0, 7)...).ends(h, 2*h)).
				queue(pending(1).gpus(4).data("east").ready()),
			wantPlace: map[int64][]int64{1: gpus(2, 0, 3)},
			wantWhere: map[int64]string{1: "now B@west first-free"},
		},
		"waiting: the place it starts first, the data region on a tie": {
			snap: snapshot(in("east", node(1, "A", 8)), in("west", node(2, "A", 8)), in("north", node(3, "A", 8))).
				run(running(90, gpus(1, 0, 7)...).ends(3*h, 4*h), running(91, gpus(2, 0, 7)...).ends(h, 2*h),
					running(92, gpus(3, 0, 7)...).ends(h, 2*h)).
				queue(pending(1).gpus(8).spec("A").ready(), pending(2).gpus(8).spec("A").data("north").ready(),
					pending(3).gpus(8).spec("A").data("east").ready()),
			wantWhy: map[int64]Reason{1: ReasonNoFreeGPUs, 2: ReasonNoFreeGPUs, 3: ReasonNoFreeGPUs},
			// Task 1 reserves north (north and west come free at +1h; ties go by region
			// name). Task 2's data is in north, which 1 holds: it reserves west, the first of
			// the rest. Task 3 gets east, the last place without a head, where its data is.
			wantWhere: map[int64]string{1: "wait A@north earliest", 2: "wait A@west earliest", 3: "wait A@east data-region"},
		},
		"a spec limit counts every region of the spec": {
			snap: snapshot(in("east", node(1, "A", 8)), in("west", node(2, "A", 8))).
				run(running(90, gid(1, 0))).
				quota("p", QuotaState{MaxGPUsBySpec: map[string]int{"A": 2}}).
				queue(pending(1).gpus(1).spec("A").ready(), pending(2).gpus(1).spec("A").regions("west").ready()),
			wantPlace: map[int64][]int64{1: {gid(1, 1)}},
			wantWhy:   map[int64]Reason{2: ReasonQuota},
			wantWhere: map[int64]string{1: "now A@east first-free"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := Decide(tc.snap.s, t0, DefaultPolicy(time.UTC))
			checkPlan(t, got, tc.wantPlace, tc.wantWhy)
			if tc.wantWhere == nil {
				tc.wantWhere = map[int64]string{}
			}
			if diff := cmp.Diff(tc.wantWhere, where(got)); diff != "" {
				t.Errorf("where (-want +got):\n%s", diff)
			}
		})
	}
}
