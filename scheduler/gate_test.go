package scheduler

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// shanghai is UTC+8 without daylight saving, fixed so that tests need no zone database.
var shanghai = time.FixedZone("CST", 8*3600)

func TestInOffPeak(t *testing.T) {
	night := DefaultPolicy(shanghai) // 22:00–08:00 in UTC+8
	day := Policy{OffPeakStart: 9 * time.Hour, OffPeakEnd: 17 * time.Hour, Location: time.UTC}
	tests := map[string]struct {
		now  time.Time
		pol  Policy
		want bool
	}{
		"before the start, same day":    {time.Date(2026, 3, 2, 21, 59, 59, 0, shanghai), night, false},
		"at the start":                  {time.Date(2026, 3, 2, 22, 0, 0, 0, shanghai), night, true},
		"past midnight":                 {time.Date(2026, 3, 3, 3, 0, 0, 0, shanghai), night, true},
		"just before the end":           {time.Date(2026, 3, 3, 7, 59, 59, 0, shanghai), night, true},
		"at the end":                    {time.Date(2026, 3, 3, 8, 0, 0, 0, shanghai), night, false},
		"zone: 15:00 UTC is 23:00 +8":   {time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC), night, true},
		"zone: 12:00 UTC is 20:00 +8":   {time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC), night, false},
		"zone: 23:30 UTC is 07:30 +8":   {time.Date(2026, 3, 2, 23, 30, 0, 0, time.UTC), night, true},
		"window within a day: inside":   {time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC), day, true},
		"window within a day: outside":  {time.Date(2026, 3, 2, 17, 0, 0, 0, time.UTC), day, false},
		"no window: never deferred":     {t0, Policy{}, true},
		"no window: start equal to end": {t0, Policy{OffPeakStart: time.Hour, OffPeakEnd: time.Hour}, true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := InOffPeak(tc.now, tc.pol); got != tc.want {
				t.Errorf("InOffPeak(%v) = %v, want %v", tc.now, got, tc.want)
			}
		})
	}
}

func TestDecideGates(t *testing.T) {
	night := time.Date(2026, 3, 2, 23, 0, 0, 0, shanghai)
	day := time.Date(2026, 3, 2, 14, 0, 0, 0, shanghai)
	tests := map[string]struct {
		snap      snapB
		now       time.Time
		wantPlace map[int64][]int64
		wantWhy   map[int64]Reason
	}{
		"only ready tasks take cards; later ready ones go ahead": {
			snap:      snapshot(node(1, "A", 1)).queue(pending(1), pending(2).ready()),
			now:       day,
			wantPlace: map[int64][]int64{2: {gid(1, 0)}},
			wantWhy:   map[int64]Reason{1: ReasonDataNotReady},
		},
		"a deferrable task runs in the window": {
			snap:      snapshot(node(1, "A", 1)).queue(pending(1).deferrable().ready(), pending(2).ready()),
			now:       night,
			wantPlace: map[int64][]int64{1: {gid(1, 0)}},
			wantWhy:   map[int64]Reason{2: ReasonNoFreeGPUs},
		},
		"outside the window a deferrable task yields to a waiting task": {
			snap:      snapshot(node(1, "A", 1)).queue(pending(1).deferrable().ready(), pending(2).ready()),
			now:       day,
			wantPlace: map[int64][]int64{2: {gid(1, 0)}},
			wantWhy:   map[int64]Reason{1: ReasonOffPeakOnly},
		},
		"outside the window a deferrable task takes cards nobody waits for": {
			snap: snapshot(node(1, "A", 2)).
				queue(pending(1).deferrable().ready(), pending(2).ready(), pending(3)),
			now:       day,
			wantPlace: map[int64][]int64{2: {gid(1, 0)}, 1: {gid(1, 1)}},
			wantWhy:   map[int64]Reason{3: ReasonDataNotReady},
		},
		"a waiting task holds back deferrable tasks on its spec only": {
			snap: snapshot(node(1, "A", 1), node(2, "B", 1)).
				run(running(90, gid(1, 0))).
				queue(pending(1).spec("A").ready(), pending(2).deferrable().ready(),
					pending(3).deferrable().spec("A").ready()),
			now:       day,
			wantPlace: map[int64][]int64{2: {gid(2, 0)}},
			wantWhy:   map[int64]Reason{1: ReasonNoFreeGPUs, 3: ReasonOffPeakOnly},
		},
		"a waiting spec-any task holds back deferrable tasks on every spec it could use": {
			snap: snapshot(node(1, "A", 2), node(2, "B", 2), node(3, "C", 1)).
				run(running(90, gid(1, 0)), running(91, gid(2, 0))).
				queue(pending(1).gpus(2).ready(), pending(2).deferrable().ready(),
					pending(3).deferrable().spec("A").ready()),
			now:       day,
			wantPlace: map[int64][]int64{2: {gid(3, 0)}},
			wantWhy:   map[int64]Reason{1: ReasonNoFreeGPUs, 3: ReasonOffPeakOnly},
		},
		"a task waiting for data holds nothing back": {
			snap:      snapshot(node(1, "A", 1)).queue(pending(1), pending(2).deferrable().ready()),
			now:       day,
			wantPlace: map[int64][]int64{2: {gid(1, 0)}},
			wantWhy:   map[int64]Reason{1: ReasonDataNotReady},
		},
		"data readiness comes before the off-peak gate": {
			snap:    snapshot(node(1, "A", 1)).queue(pending(1).deferrable()),
			now:     day,
			wantWhy: map[int64]Reason{1: ReasonDataNotReady},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := Decide(tc.snap.s, tc.now, DefaultPolicy(shanghai))
			checkPlan(t, got, tc.wantPlace, tc.wantWhy)
		})
	}
}

func TestDecideQuota(t *testing.T) {
	two := snapshot(node(1, "A", 4), node(2, "B", 4))
	tests := map[string]struct {
		snap         snapB
		wantPlace    map[int64][]int64
		wantWhy      map[int64]Reason
		wantDetail   map[int64]string
		wantOverflow []int64
	}{
		"no quota entry means unlimited": {
			snap:      two.queue(pending(1).gpus(4).spec("A").ready()).quota("other", QuotaState{MaxGPUs: 1}),
			wantPlace: map[int64][]int64{1: gpus(1, 0, 3)},
		},
		"a task over the concurrent limit waits, a smaller one fits": {
			snap: two.run(running(90, gid(1, 0))).
				queue(pending(1).gpus(2).spec("A").ready(), pending(2).gpus(1).spec("A").ready()).
				quota("p", QuotaState{MaxGPUs: 2}),
			wantPlace:  map[int64][]int64{2: {gid(1, 1)}},
			wantWhy:    map[int64]Reason{1: ReasonQuota},
			wantDetail: map[int64]string{1: DetailConcurrentLimit},
		},
		"another project's running tasks do not count": {
			snap: two.run(running(90, gpus(1, 0, 1)...).project("q")).
				queue(pending(1).gpus(2).spec("A").ready()).
				quota("p", QuotaState{MaxGPUs: 2}),
			wantPlace: map[int64][]int64{1: gpus(1, 2, 3)},
		},
		"placements of the same pass count against the limit": {
			snap: two.queue(pending(1).gpus(2).spec("A").ready(), pending(2).gpus(2).spec("A").ready()).
				quota("p", QuotaState{MaxGPUs: 3}),
			wantPlace:  map[int64][]int64{1: gpus(1, 0, 1)},
			wantWhy:    map[int64]Reason{2: ReasonQuota},
			wantDetail: map[int64]string{2: DetailConcurrentLimit},
		},
		"a per-spec limit sends a spec-any task to another spec": {
			snap: two.queue(pending(1).gpus(2).ready()).
				quota("p", QuotaState{MaxGPUsBySpec: map[string]int{"A": 1}}),
			wantPlace: map[int64][]int64{1: gpus(2, 0, 1)},
		},
		"a per-spec limit stops a task of that spec": {
			snap: two.run(running(90, gid(2, 0))).
				queue(pending(1).gpus(1).spec("B").ready(), pending(2).gpus(1).spec("A").ready()).
				quota("p", QuotaState{MaxGPUsBySpec: map[string]int{"B": 1}}),
			wantPlace:  map[int64][]int64{2: {gid(1, 0)}},
			wantWhy:    map[int64]Reason{1: ReasonQuota},
			wantDetail: map[int64]string{1: DetailConcurrentLimit},
		},
		"an exhausted budget stops every task of the project": {
			snap: two.queue(pending(1).ready(), pending(2).project("q").ready()).
				quota("p", QuotaState{BudgetExhausted: true}),
			wantPlace:  map[int64][]int64{2: {gid(1, 0)}},
			wantWhy:    map[int64]Reason{1: ReasonQuota},
			wantDetail: map[int64]string{1: DetailBudgetExhausted},
		},
		"overflow allowed: the task runs, flagged": {
			snap: two.queue(pending(1).ready(), pending(2).gpus(4).spec("B").ready()).
				quota("p", QuotaState{MaxGPUs: 1, Overflow: true}),
			wantPlace:    map[int64][]int64{1: {gid(1, 0)}, 2: gpus(2, 0, 3)},
			wantWhy:      map[int64]Reason{},
			wantOverflow: []int64{2},
		},
		"overflow prefers a spec within quota": {
			snap: two.queue(pending(1).gpus(2).ready()).
				quota("p", QuotaState{MaxGPUsBySpec: map[string]int{"A": 0}, Overflow: true}),
			wantPlace: map[int64][]int64{1: gpus(2, 0, 1)},
		},
		"overflow with an exhausted budget": {
			snap: two.queue(pending(1).ready()).
				quota("p", QuotaState{BudgetExhausted: true, Overflow: true}),
			wantPlace:    map[int64][]int64{1: {gid(1, 0)}},
			wantOverflow: []int64{1},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := Decide(tc.snap.s, t0, DefaultPolicy(time.UTC))
			checkPlan(t, got, tc.wantPlace, tc.wantWhy)
			gotDetail := map[int64]string{}
			for _, w := range got.Waiting {
				if w.Detail != "" {
					gotDetail[w.TaskID] = w.Detail
				}
			}
			if tc.wantDetail == nil {
				tc.wantDetail = map[int64]string{}
			}
			if diff := cmp.Diff(tc.wantDetail, gotDetail); diff != "" {
				t.Errorf("Decide(...) details = %v, want %v (-want +got):\n%s", gotDetail, tc.wantDetail, diff)
			}
			var gotOverflow []int64
			for _, p := range got.Placements {
				if p.Overflow {
					gotOverflow = append(gotOverflow, p.TaskID)
				}
			}
			if diff := cmp.Diff(tc.wantOverflow, gotOverflow); diff != "" {
				t.Errorf("Decide(...) overflow = %v, want %v (-want +got):\n%s", gotOverflow, tc.wantOverflow, diff)
			}
		})
	}
}
