package scheduler

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestQuotaWaitETA: a task waiting on its project's concurrent limit is expected to start
// when enough of the project's own cards end (p50 by their estimates, p90 by their max
// runtimes) and cards are free, the project's earlier waiting tasks taking the quota first;
// its wait says which limit and by how much.
func TestQuotaWaitETA(t *testing.T) {
	h := time.Hour
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	type want struct {
		P50, P90 time.Time
		Quota    *QuotaWait
	}
	tests := map[string]struct {
		snap snapB
		want map[int64]want
	}{
		"the project's own cards end": {
			snap: snapshot(node(1, "A", 8)).run(running(90, gpus(1, 0, 3)...).project("q").ends(h, 3*h)).
				queue(pending(1).project("q").gpus(2).ready()).
				quota("q", QuotaState{MaxGPUsBySpec: map[string]int{"A": 4}}),
			want: map[int64]want{1: {at(h), at(3 * h), &QuotaWait{Project: "q", Spec: "A", Limit: 4, InUse: 4, Needs: 2}}},
		},
		"the project's earlier waiting task takes the quota first": {
			snap: snapshot(node(1, "A", 8)).
				run(running(90, gpus(1, 0, 1)...).project("q").ends(h, h), running(91, gpus(1, 2, 3)...).project("q").ends(2*h, 2*h)).
				queue(pending(1).project("q").gpus(2).est(4*h).maxRun(4*h).ready(), pending(2).project("q").gpus(2).ready()).
				quota("q", QuotaState{MaxGPUsBySpec: map[string]int{"A": 4}}),
			want: map[int64]want{
				1: {at(h), at(h), &QuotaWait{Project: "q", Spec: "A", Limit: 4, InUse: 4, Needs: 2}},
				2: {at(2 * h), at(2 * h), &QuotaWait{Project: "q", Spec: "A", Limit: 4, InUse: 4, Needs: 2}},
			},
		},
		// The scheduler holds no limit for the first task waiting on it: the demo's 2-card
		// quota waits behind a 16-card one were estimated hours for starts within minutes.
		"a smaller task passes one that does not fit yet, as the scheduler lets it": {
			snap: snapshot(node(1, "A", 16)).
				run(running(90, gpus(1, 0, 3)...).project("q").ends(h, h), running(91, gpus(1, 4, 7)...).project("q").ends(3*h, 3*h)).
				queue(pending(1).project("q").gpus(8).est(4*h).maxRun(4*h).ready(), pending(2).project("q").gpus(2).est(h).maxRun(h).ready()).
				quota("q", QuotaState{MaxGPUsBySpec: map[string]int{"A": 8}}),
			want: map[int64]want{
				1: {at(3 * h), at(3 * h), &QuotaWait{Project: "q", Spec: "A", Limit: 8, InUse: 8, Needs: 8}},
				2: {at(h), at(h), &QuotaWait{Project: "q", Spec: "A", Limit: 8, InUse: 8, Needs: 2}},
			},
		},
		"a limit on every spec counts the project's cards of every spec": {
			snap: snapshot(node(1, "A", 8), node(2, "B", 8)).
				run(running(90, gpus(1, 0, 1)...).project("q").ends(h, h), running(91, gpus(2, 0, 1)...).project("q").ends(2*h, 2*h)).
				queue(pending(1).project("q").spec("A").gpus(4).ready()).
				quota("q", QuotaState{MaxGPUs: 4}),
			want: map[int64]want{1: {at(2 * h), at(2 * h), &QuotaWait{Project: "q", Limit: 4, InUse: 4, Needs: 4}}},
		},
		"asking more than the limit ever leaves: unknown": {
			snap: snapshot(node(1, "A", 4)).
				run(running(90, gpus(1, 0, 1)...).project("q").ends(h, h), running(91, gpus(1, 2, 3)...).project("o").ends(2*h, 3*h)).
				queue(pending(1).project("q").gpus(4).ready()).
				quota("q", QuotaState{MaxGPUsBySpec: map[string]int{"A": 2}}),
			want: map[int64]want{1: {time.Time{}, time.Time{}, &QuotaWait{Project: "q", Spec: "A", Limit: 2, InUse: 2, Needs: 4}}},
		},
		"cards come free after the quota does": {
			snap: snapshot(node(1, "A", 4)).
				run(running(90, gid(1, 0)).project("q").ends(h, h), running(91, gpus(1, 1, 3)...).project("o").ends(2*h, 3*h)).
				queue(pending(1).project("q").gpus(2).ready()).
				quota("q", QuotaState{MaxGPUsBySpec: map[string]int{"A": 2}}),
			want: map[int64]want{1: {at(2 * h), at(3 * h), &QuotaWait{Project: "q", Spec: "A", Limit: 2, InUse: 1, Needs: 1}}},
		},
		"cards held over a lowered limit free no quota as they end": {
			snap: snapshot(node(1, "A", 8)).
				run(running(90, gpus(1, 0, 1)...).project("q").ends(h, h), running(91, gpus(1, 2, 3)...).project("q").ends(2*h, 2*h)).
				queue(pending(1).project("q").ready()).
				quota("q", QuotaState{MaxGPUsBySpec: map[string]int{"A": 2}}),
			want: map[int64]want{1: {at(2 * h), at(2 * h), &QuotaWait{Project: "q", Spec: "A", Limit: 2, InUse: 4, Needs: 3}}},
		},
		// The demo's quota waits were estimated 1.5–2.2 times their waits: the project's
		// idle tasks were counted to their estimates, and reclaim stopped them first.
		"the project's idle task ends when reclaim stops it": {
			snap: snapshot(node(1, "A", 8)).
				run(running(90, gpus(1, 0, 1)...).project("q").ends(5*h, 6*h).reclaimed(30*time.Minute),
					running(91, gpus(1, 2, 3)...).project("q").ends(2*h, 3*h)).
				queue(pending(1).project("q").gpus(2).ready()).
				quota("q", QuotaState{MaxGPUsBySpec: map[string]int{"A": 4}}),
			want: map[int64]want{1: {at(30 * time.Minute), at(3 * h), &QuotaWait{Project: "q", Spec: "A", Limit: 4, InUse: 4, Needs: 2}}},
		},
		"a card of the project with no expected end: unknown": {
			snap: snapshot(node(1, "A", 8)).run(running(90, gpus(1, 0, 3)...).project("q")).
				queue(pending(1).project("q").ready()).
				quota("q", QuotaState{MaxGPUs: 4}),
			want: map[int64]want{1: {time.Time{}, time.Time{}, &QuotaWait{Project: "q", Limit: 4, InUse: 4, Needs: 1}}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			plan := Decide(tc.snap.s, t0, DefaultPolicy(time.UTC))
			got := map[int64]want{}
			for _, w := range plan.Waiting {
				if w.Reason != ReasonQuota || w.Detail != DetailConcurrentLimit {
					t.Errorf("task %d waits with %s (%s), want the concurrent limit", w.TaskID, w.Reason, w.Detail)
				}
				got[w.TaskID] = want{w.ETAP50, w.ETAP90, w.Quota}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Decide(...) quota waits (-want +got):\n%s", diff)
			}
		})
	}
}

// TestQuotaWaitString: the English reason names the limit, its use and the need.
func TestQuotaWaitString(t *testing.T) {
	tests := map[string]struct {
		w    Waiting
		want string
	}{
		"a spec's limit": {Waiting{Reason: ReasonQuota, Detail: DetailConcurrentLimit,
			Quota: &QuotaWait{Project: "vision", Spec: "A100-80G", Limit: 24, InUse: 24, Needs: 4}},
			"waiting for quota A100-80G of vision: 24 of 24 in use, needs 4 more"},
		"every spec's": {Waiting{Reason: ReasonQuota, Detail: DetailConcurrentLimit,
			Quota: &QuotaWait{Project: "speech", Limit: 16, InUse: 14, Needs: 2}},
			"waiting for quota all specs of speech: 14 of 16 in use, needs 2 more"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := tc.w.String(); got != tc.want {
				t.Errorf("%#v.String() = %q, want %q", tc.w, got, tc.want)
			}
		})
	}
}
