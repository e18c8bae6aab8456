package scheduler

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestDecideETA(t *testing.T) {
	h := time.Hour
	type eta struct{ P50, P90 time.Time }
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	tests := map[string]struct {
		snap snapB
		pol  func(*Policy)
		want map[int64]eta
	}{
		"p50 follows estimates, p90 max runtimes": {
			snap: snapshot(node(1, "A", 8)).run(running(90, gpus(1, 0, 7)...).ends(h, 3*h)).
				queue(pending(1).gpus(8).est(2*h).maxRun(4*h).ready(), pending(2).gpus(8).est(h).maxRun(2*h).ready()),
			want: map[int64]eta{1: {at(h), at(3 * h)}, 2: {at(3 * h), at(7 * h)}},
		},
		"small tasks share the cards that come free first": {
			snap: snapshot(node(1, "A", 2)).
				run(running(90, gid(1, 0)).ends(h, h), running(91, gid(1, 1)).ends(2*h, 2*h)).
				queue(pending(1).maxRun(h).ready(), pending(2).maxRun(h).ready(), pending(3).maxRun(h).ready()),
			want: map[int64]eta{1: {at(h), at(h)}, 2: {at(2 * h), at(2 * h)}, 3: {at(2 * h), at(2 * h)}},
		},
		"a head starts no earlier than its reservation": {
			// Pool-wide 4 cards are free at t0+1h, but not on one node until t0+2h.
			snap: snapshot(node(1, "A", 4), node(2, "A", 4)).
				run(running(90, gpus(1, 0, 1)...).ends(h, h), running(91, gpus(2, 0, 1)...).ends(h, h),
					running(92, gpus(1, 2, 3)...).ends(2*h, 2*h), running(93, gpus(2, 2, 3)...).ends(3*h, 3*h)).
				queue(pending(1).gpus(4).maxRun(h).ready()),
			want: map[int64]eta{1: {at(2 * h), at(2 * h)}},
		},
		"a card with no expected end makes the wait unknown": {
			snap: snapshot(node(1, "A", 1)).run(running(90, gid(1, 0))).
				queue(pending(1).maxRun(h).ready()),
			want: map[int64]eta{1: {}},
		},
		"a task without a max runtime has no p90 for those behind it": {
			snap: snapshot(node(1, "A", 1)).run(running(90, gid(1, 0)).ends(h, h)).
				queue(pending(1).est(h).ready(), pending(2).maxRun(h).ready()),
			want: map[int64]eta{1: {at(h), at(h)}, 2: {at(2 * h), time.Time{}}},
		},
		"waiting for data, quota or impossible capacity: unknown": {
			snap: snapshot(node(1, "A", 1)).run(running(90, gid(1, 0)).ends(h, h)).
				queue(pending(1).maxRun(h), pending(2).gpus(2).ready(), pending(3).project("q").ready()).
				quota("q", QuotaState{BudgetExhausted: true}),
			want: map[int64]eta{1: {}, 2: {}, 3: {}},
		},
		"a deferrable task takes the cards no other waiting task needs, before the off-peak window": {
			// t0 is 20:00 in UTC+8; the window opens at 22:00. Both cards come free in an
			// hour: task 2 takes one, the deferrable task the other.
			snap: snapshot(node(1, "A", 2)).run(running(90, gpus(1, 0, 1)...).ends(h, h)).
				queue(pending(1).maxRun(h).deferrable().ready(), pending(2).maxRun(h).ready()),
			pol:  func(p *Policy) { p.Location = shanghai },
			want: map[int64]eta{1: {at(h), at(h)}, 2: {at(h), at(h)}},
		},
		"a deferrable task comes after the other waiting tasks": {
			snap: snapshot(node(1, "A", 1)).run(running(90, gid(1, 0)).ends(h, h)).
				queue(pending(1).maxRun(h).deferrable().ready(), pending(2).maxRun(h).ready()),
			pol:  func(p *Policy) { p.Location = shanghai },
			want: map[int64]eta{1: {at(2 * h), at(2 * h)}, 2: {at(h), at(h)}},
		},
		"only the first ETADepth tasks per spec are replayed": {
			snap: snapshot(node(1, "A", 1)).run(running(90, gid(1, 0)).ends(h, h)).
				queue(pending(1).spec("A").maxRun(h).ready(), pending(2).spec("A").maxRun(h).ready(),
					pending(3).maxRun(h).ready()),
			pol:  func(p *Policy) { p.ETADepth = 1 },
			want: map[int64]eta{1: {at(h), at(h)}, 2: {}, 3: {at(2 * h), at(2 * h)}},
		},
		"a negative ETADepth turns ETAs off": {
			snap: snapshot(node(1, "A", 1)).run(running(90, gid(1, 0)).ends(h, h)).
				queue(pending(1).maxRun(h).ready()),
			pol:  func(p *Policy) { p.ETADepth = -1 },
			want: map[int64]eta{1: {}},
		},
		"a spec-any task takes the spec where it starts first": {
			snap: snapshot(node(1, "A", 1), node(2, "B", 1)).
				run(running(90, gid(1, 0)).ends(2*h, 2*h), running(91, gid(2, 0)).ends(3*h, 3*h)).
				queue(pending(1).spec("A").maxRun(2*h).ready(), pending(2).maxRun(h).ready()),
			want: map[int64]eta{1: {at(2 * h), at(2 * h)}, 2: {at(3 * h), at(3 * h)}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			pol := DefaultPolicy(time.UTC)
			if tc.pol != nil {
				tc.pol(&pol)
			}
			plan := Decide(tc.snap.s, t0, pol)
			got := map[int64]eta{}
			for _, w := range plan.Waiting {
				got[w.TaskID] = eta{w.ETAP50, w.ETAP90}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Decide(...) ETAs = %v, want %v (-want +got):\n%s", got, tc.want, diff)
			}
		})
	}
}

func TestWaitingString(t *testing.T) {
	tests := map[string]struct {
		w    Waiting
		want string
	}{
		"no free cards": {Waiting{Reason: ReasonNoFreeGPUs, Spec: "A100-80G"}, "waiting for free A100-80G GPUs"},
		"any spec":      {Waiting{Reason: ReasonNoFreeGPUs}, "waiting for free any GPUs"},
		"behind":        {Waiting{Reason: ReasonBehind, Ahead: 7}, "free cards are kept for task 7, ahead in the queue"},
		"quota":         {Waiting{Reason: ReasonQuota, Detail: DetailBudgetExhausted}, "waiting for quota: budget-exhausted"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := tc.w.String(); got != tc.want {
				t.Errorf("%#v.String() = %q, want %q", tc.w, got, tc.want)
			}
		})
	}
}

func TestEstRuntime(t *testing.T) {
	tests := map[string]struct {
		hours float64
		gpus  int
		want  time.Duration
	}{
		"card-hours over cards": {hours: 16, gpus: 8, want: 2 * time.Hour},
		"fractions":             {hours: 1, gpus: 4, want: 15 * time.Minute},
		"no estimate":           {hours: 0, gpus: 4, want: 0},
		"no cards":              {hours: 3, gpus: 0, want: 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := EstRuntime(tc.hours, tc.gpus); got != tc.want {
				t.Errorf("EstRuntime(%v, %d) = %v, want %v", tc.hours, tc.gpus, got, tc.want)
			}
		})
	}
}
