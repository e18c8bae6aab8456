package scheduler

import (
	"testing"
	"time"
)

func TestDecideGuaranteedShare(t *testing.T) {
	// Project "g" is guaranteed 4 A cards and holds 1; one node of 8 A cards, 2 held by g.
	guaranteed := QuotaState{Guaranteed: map[string]int{"A": 4}}
	base := func() snapB {
		return snapshot(node(1, "A", 8)).run(running(90, gid(1, 0)).project("g").ends(time.Hour, 2*time.Hour)).
			quota("g", guaranteed)
	}
	tests := map[string]struct {
		snap      snapB
		wantPlace map[int64][]int64
		wantWhy   map[int64]Reason
	}{
		"another project's long task leaves the unmet guarantee free": {
			// 7 free, 3 owed to g: a long task may take 4, not 5.
			snap:      base().queue(pending(1).project("p").gpus(5).spec("A").ready(), pending(2).project("p").gpus(4).spec("A").ready()),
			wantPlace: map[int64][]int64{2: gpus(1, 1, 4)},
			wantWhy:   map[int64]Reason{1: ReasonQuota},
		},
		"short tasks may borrow guaranteed cards": {
			snap:      base().queue(pending(1).project("p").gpus(7).spec("A").short(time.Hour).ready()),
			wantPlace: map[int64][]int64{1: gpus(1, 1, 7)},
		},
		"the guaranteed project itself uses its share": {
			snap:      base().queue(pending(1).project("g").gpus(7).spec("A").ready()),
			wantPlace: map[int64][]int64{1: gpus(1, 1, 7)},
		},
		"a met guarantee holds nothing back": {
			snap: snapshot(node(1, "A", 8)).run(running(90, gpus(1, 0, 3)...).project("g").ends(time.Hour, 2*time.Hour)).
				quota("g", guaranteed).queue(pending(1).project("p").gpus(4).spec("A").ready()),
			wantPlace: map[int64][]int64{1: gpus(1, 4, 7)},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			checkPlan(t, Decide(tc.snap.s, t0, Policy{}), tc.wantPlace, tc.wantWhy)
		})
	}
}

// A project at its limit that may overflow runs over quota on a spec nobody is guaranteed;
// another project's guarantee on a different spec holds nothing back (it used to hold back
// every overflowing long task, with the false reason "guaranteed share").
func TestDecideOverflowBesideAGuaranteeElsewhere(t *testing.T) {
	snap := snapshot(node(1, "A", 8), node(2, "B", 8)).
		quota("g", QuotaState{Guaranteed: map[string]int{"A": 4}}).
		quota("p", QuotaState{ExhaustedSpecs: map[string]bool{"A": true, "B": true}, Overflow: true}).
		queue(pending(1).project("p").gpus(4).spec("B").ready(), pending(2).project("p").gpus(6).spec("A").ready())
	plan := Decide(snap.s, t0, Policy{})
	checkPlan(t, plan, map[int64][]int64{1: gpus(2, 0, 3)}, map[int64]Reason{2: ReasonQuota})
	if len(plan.Placements) == 1 && !plan.Placements[0].Overflow {
		t.Errorf("Decide(...) placed task 1 without Overflow")
	}
	if w := waitingOf(plan, 2); w.Detail != DetailGuaranteedShare {
		t.Errorf("task 2 (6 of A's 8 free cards, 4 owed to g) waits with %q, want %q", w.Detail, DetailGuaranteedShare)
	}
}

func TestDecideBudgetBySpec(t *testing.T) {
	snap := snapshot(node(1, "A", 2), node(2, "B", 2)).
		quota("p", QuotaState{ExhaustedSpecs: map[string]bool{"A": true}}).
		queue(pending(1).gpus(1).spec("A").ready(), pending(2).gpus(1).spec("B").ready())
	checkPlan(t, Decide(snap.s, t0, Policy{}), map[int64][]int64{2: {gid(2, 0)}}, map[int64]Reason{1: ReasonQuota})
	if w := waitingOf(Decide(snap.s, t0, Policy{}), 1); w.Detail != DetailBudgetExhausted {
		t.Errorf("Decide(...) detail = %q, want %q", w.Detail, DetailBudgetExhausted)
	}
	overflow := snap.quota("p", QuotaState{ExhaustedSpecs: map[string]bool{"A": true}, Overflow: true})
	plan := Decide(overflow.s, t0, Policy{})
	for _, p := range plan.Placements {
		if p.TaskID == 1 && !p.Overflow {
			t.Errorf("Decide(...) placed task 1 without Overflow, want the overflow mark")
		}
	}
	if len(plan.Placements) != 2 {
		t.Errorf("Decide(...) with overflow placed %d tasks, want 2", len(plan.Placements))
	}
}
