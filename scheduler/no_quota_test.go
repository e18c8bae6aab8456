package scheduler

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/models"
)

// TestDecideNoQuota: a spec the project has no quota on whose pools refuse such projects
// takes none of its tasks (they wait on the quota, "no-quota", and a task of any spec runs
// on another spec); one they limit takes them up to the limit, counting the cards the
// project holds, and overflow allowed by another quota does not pass it.
func TestDecideNoQuota(t *testing.T) {
	fleet := func() snapB { return snapshot(node(1, "A", 8), node(2, "B", 8)) }
	refusedA := QuotaState{NoQuotaMaxGPUs: map[string]int{"A": 0}}
	limitB := QuotaState{NoQuotaMaxGPUs: map[string]int{"B": 3}, MaxGPUsBySpec: map[string]int{"A": 8}, Overflow: true}
	tests := map[string]struct {
		snap       snapB
		wantPlace  map[int64][]int64
		wantWhy    map[int64]Reason
		wantDetail map[int64]string
	}{
		"a refused spec takes none": {
			snap:       fleet().queue(pending(1).spec("A").ready()).quota("p", refusedA),
			wantWhy:    map[int64]Reason{1: ReasonQuota},
			wantDetail: map[int64]string{1: DetailNoQuota},
		},
		"a task of any spec runs on another": {
			snap:      fleet().queue(pending(1).gpus(2).ready()).quota("p", refusedA),
			wantPlace: map[int64][]int64{1: gpus(2, 0, 1)},
		},
		"another project is not held by it": {
			snap:      fleet().queue(pending(1).project("q").spec("A").ready()).quota("p", refusedA),
			wantPlace: map[int64][]int64{1: {gid(1, 0)}},
		},
		"a limited spec takes tasks up to its limit, overflow or not": {
			snap: fleet().run(running(10, gid(2, 7))).
				queue(pending(1).spec("B").gpus(2).ready(), pending(2).spec("B").ready()).quota("p", limitB),
			wantPlace:  map[int64][]int64{1: gpus(2, 0, 1)},
			wantWhy:    map[int64]Reason{2: ReasonQuota},
			wantDetail: map[int64]string{2: DetailNoQuota},
		},
		"a spec with a quota keeps its own rules": {
			snap:      fleet().queue(pending(1).spec("A").gpus(8).ready()).quota("p", limitB),
			wantPlace: map[int64][]int64{1: gpus(1, 0, 7)},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			plan := Decide(tc.snap.s, t0, Policy{})
			checkPlan(t, plan, tc.wantPlace, tc.wantWhy)
			for id, want := range tc.wantDetail {
				if got := waitingOf(plan, id).Detail; got != want {
					t.Errorf("task %d waits with detail %q, want %q", id, got, want)
				}
			}
		})
	}
}

// TestQuotaStatesNoQuota: the pools' rules cap, for every project, the specs it has no quota
// on (of the spec, or of all specs), also a project with no quota at all; an allowing rule
// caps nothing.
func TestQuotaStatesNoQuota(t *testing.T) {
	now := time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)
	quotas := []models.Quota{
		{ProjectID: 1, Spec: "A", MaxGPUs: 8, BudgetCardHours: 10, StartsAt: now.Add(-time.Hour), EndsAt: now.Add(time.Hour)},
		{ProjectID: 2, Spec: "", MaxGPUs: 8, BudgetCardHours: 10, StartsAt: now.Add(-time.Hour), EndsAt: now.Add(time.Hour)},
	}
	rules := map[string]models.NoQuotaRule{
		"A": {Policy: models.NoQuotaRefused, Pool: "a"},
		"B": {Policy: models.NoQuotaLimit, MaxGPUs: 2, Pool: "b"},
		"C": {Policy: models.NoQuotaAllowed},
	}
	got := QuotaStates(quotas, nil, map[int64]string{1: "vision", 2: "nlp", 3: "speech"}, rules, now)
	caps := map[string]map[string]int{}
	for name, qs := range got {
		caps[name] = qs.NoQuotaMaxGPUs
	}
	want := map[string]map[string]int{"vision": {"B": 2}, "nlp": nil, "speech": {"A": 0, "B": 2}}
	if diff := cmp.Diff(want, caps); diff != "" {
		t.Errorf("QuotaStates(...) no-quota caps mismatch (-want +got):\n%s", diff)
	}
}
