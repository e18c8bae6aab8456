package scheduler

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestDecideServiceCap: services are held to their project's service cap besides its limit,
// running services counting, batch tasks not; overflow does not pass the cap; a waiting
// service is shown in the service lane with its own positions.
func TestDecideServiceCap(t *testing.T) {
	two := snapshot(node(1, "A", 4), node(2, "B", 4))
	tests := map[string]struct {
		snap       snapB
		wantPlace  map[int64][]int64
		wantWhy    map[int64]Reason
		wantDetail map[int64]string
	}{
		"no cap: a service takes cards like any long task": {
			snap:      two.queue(pending(1).gpus(2).spec("A").service().ready()).quota("p", QuotaState{MaxGPUs: 8}),
			wantPlace: map[int64][]int64{1: gpus(1, 0, 1)},
		},
		"a running service counts to the cap; a batch task passes": {
			snap: two.run(running(90, gpus(1, 0, 1)...).service(), running(91, gid(1, 2))).
				queue(pending(1).gpus(1).spec("A").service().ready(), pending(2).gpus(1).spec("A").ready()).
				quota("p", QuotaState{MaxGPUs: 8, MaxServiceGPUs: 2}),
			wantPlace:  map[int64][]int64{2: {gid(1, 3)}},
			wantWhy:    map[int64]Reason{1: ReasonQuota},
			wantDetail: map[int64]string{1: DetailServiceLimit},
		},
		"placements of the same pass count to the cap": {
			snap: two.queue(pending(1).gpus(2).spec("A").service().ready(), pending(2).gpus(2).spec("B").service().ready()).
				quota("p", QuotaState{MaxServiceGPUs: 3}),
			wantPlace:  map[int64][]int64{1: gpus(1, 0, 1)},
			wantWhy:    map[int64]Reason{2: ReasonQuota},
			wantDetail: map[int64]string{2: DetailServiceLimit},
		},
		"overflow does not pass the cap": {
			snap: two.run(running(90, gid(1, 0)).service()).
				queue(pending(1).spec("A").service().ready()).
				quota("p", QuotaState{MaxGPUs: 1, MaxServiceGPUs: 1, Overflow: true}),
			wantWhy:    map[int64]Reason{1: ReasonQuota},
			wantDetail: map[int64]string{1: DetailServiceLimit},
		},
		"a spec's cap sends a service of any spec to another spec": {
			snap: two.run(running(90, gid(1, 0)).service()).
				queue(pending(1).gpus(2).service().ready()).
				quota("p", QuotaState{MaxServiceGPUsBySpec: map[string]int{"A": 2}}),
			wantPlace: map[int64][]int64{1: gpus(2, 0, 1)},
		},
		"another project's services do not count": {
			snap: two.run(running(90, gpus(1, 0, 1)...).service().project("q")).
				queue(pending(1).gpus(2).spec("A").service().ready()).
				quota("p", QuotaState{MaxServiceGPUs: 2}),
			wantPlace: map[int64][]int64{1: gpus(1, 2, 3)},
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
				t.Errorf("Decide(...) details (-want +got):\n%s", diff)
			}
		})
	}
}

// TestQueueViewShowsTheServiceLane: waiting services are listed after the long lane, with
// positions of their own; a service starting now is in the service lane too.
func TestQueueViewShowsTheServiceLane(t *testing.T) {
	snap := snapshot(node(1, "A", 1)).queue(
		pending(1).spec("A").service().ready(),
		pending(2).spec("A").ready(),
		pending(3).spec("A").service().ready(),
	).s
	plan := Decide(snap, t0, DefaultPolicy(time.UTC))
	v := NewQueueView(snap, plan, t0, DefaultPolicy(time.UTC))
	var got []string
	for _, e := range v.Entries {
		got = append(got, e.String())
	}
	type row struct {
		ID       int64
		Lane     string
		Position int
	}
	var rows []row
	for _, e := range v.Entries {
		rows = append(rows, row{e.TaskID, e.Lane, e.Position})
	}
	want := []row{{2, "long", 1}, {1, "service", 0}, {3, "service", 1}}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("NewQueueView(...) entries %q (-want +got):\n%s", got, diff)
	}
}
