package scheduler

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestQuotaUseIsWhatDecideAdmits: the queue view's use (what pages show) is the count Decide
// admits against: a project at its A100 limit with a task of any spec on an H800 holds 2
// A100 cards, not 3; a task asking one more A100 waits on the quota, one for the H800 spec
// starts; and the capacity panel's held cards are the projects' use, spec by spec.
func TestQuotaUseIsWhatDecideAdmits(t *testing.T) {
	snap := snapshot(node(1, "A100-80G", 4), node(2, "H800-80G", 2)).
		run(running(10, gpus(1, 0, 1)...), running(11, gid(2, 0)), running(12, gid(1, 2)).project("q")).
		queue(pending(20).spec("A100-80G").ready(), pending(21).spec("H800-80G").ready()).
		quota("p", QuotaState{MaxGPUsBySpec: map[string]int{"A100-80G": 2, "H800-80G": 2}}).s
	plan := Decide(snap, t0, Policy{})
	checkPlan(t, plan, map[int64][]int64{21: {gid(2, 1)}}, map[int64]Reason{20: ReasonQuota})

	before := QuotaUse(snap)
	want := map[string]Use{"p": {Total: 3, BySpec: map[string]int{"A100-80G": 2, "H800-80G": 1}},
		"q": {Total: 1, BySpec: map[string]int{"A100-80G": 1}}}
	if diff := cmp.Diff(want, before); diff != "" {
		t.Errorf("QuotaUse(...) mismatch (-want +got):\n%s", diff)
	}
	view := NewQueueView(snap, plan, t0, Policy{})
	want["p"] = Use{Total: 4, BySpec: map[string]int{"A100-80G": 2, "H800-80G": 2}}
	if diff := cmp.Diff(want, view.Use); diff != "" {
		t.Errorf("NewQueueView(...).Use, once task 21 holds its card, mismatch (-want +got):\n%s", diff)
	}
	if got := view.Use["p"].Of("A100-80G"); got > 2 {
		t.Errorf("p holds %d A100 cards on the pages, above its limit of 2", got)
	}
	if got, want := view.Use["p"].Of(""), 4; got != want {
		t.Errorf("Use.Of(all specs) = %d, want %d", got, want)
	}
	held := map[string]int{}
	for _, c := range view.Capacity {
		held[c.Spec] += c.Held
	}
	used := map[string]int{}
	for _, u := range view.Use {
		for spec, n := range u.BySpec {
			used[spec] += n
		}
	}
	if diff := cmp.Diff(used, held); diff != "" {
		t.Errorf("the capacity panel's held cards differ from the projects' use (-use +panel):\n%s", diff)
	}
}
