package scheduler

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestETAFloors: the replay never starts a task sooner than Decide could. A task Decide did
// not place waits at least for its place's next change, even where the replay finds its cards
// free (they are booked by another project); the p90 of a task that needs a whole node
// counts the node free by its holders' latest ends, not their expected ones; and a deferrable
// task's floor counts no new machine, which it would not take. Each was shown starting
// sooner: now, at the expected ends, and when the pool grows.
func TestETAFloors(t *testing.T) {
	h, m := time.Hour, time.Minute
	type eta struct{ P50, P90 time.Time }
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	grow := []Growth{{Spec: "A", GPUsPerNode: 4, Room: 2, Batch: 1, Delay: 2 * m, Boot: 8 * m, Every: 10 * m}}
	tests := map[string]struct {
		snap snapB
		pol  func(*Policy)
		want map[int64]eta
	}{
		"kept out by another project's booking: the next change, not now": {
			snap: snapshot(node(1, "A", 8)).run(running(90, gpus(1, 0, 3)...).ends(h, 2*h)).
				book("b", "A", 4, t0.Add(30*m), t0.Add(9*h)).
				queue(pending(1).project("p").gpus(2).spec("A").maxRun(h).ready()),
			want: map[int64]eta{1: {at(h), at(2 * h)}},
		},
		"a whole node by its holders' latest ends": {
			snap: snapshot(node(1, "A", 4), node(2, "A", 4)).
				run(running(90, gpus(1, 0, 1)...).ends(h, 3*h), running(91, gpus(2, 0, 1)...).ends(h, 3*h)).
				queue(pending(1).gpus(4).maxRun(h).ready()),
			want: map[int64]eta{1: {at(h), at(3 * h)}},
		},
		"a deferrable task waits for a whole node, not for new machines": {
			snap: func() snapB {
				b := snapshot(node(1, "A", 4), node(2, "A", 4)).
					run(running(90, gpus(1, 0, 1)...).ends(3*h, 3*h), running(91, gpus(2, 0, 1)...).ends(3*h, 3*h)).
					queue(pending(1).gpus(4).maxRun(h).deferrable().ready())
				b.s.Growth = grow
				return b
			}(),
			pol:  func(p *Policy) { p.Location = shanghai },
			want: map[int64]eta{1: {at(3 * h), at(3 * h)}},
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

// TestETAFirstNodeByOdds: an 8-card task waits for one of two nodes to come whole, each held
// by a 4-card task that ran 3 of its estimated 4 hours, in a project whose tasks ran 0.8 to
// 1.25 times their estimates. Either node's end is as likely anywhere in that spread, so the
// first of the two comes, with even odds, by 0.9 of the estimate (36 minutes from now); the
// point ends (the median ratio, 1.025: 66 minutes) gave the first of their medians instead.
func TestETAFirstNodeByOdds(t *testing.T) {
	h := time.Hour
	var samples []RuntimeSample
	for _, x := range []float64{0.8, 0.85, 0.9, 0.95, 1, 1.05, 1.1, 1.15, 1.2, 1.25} {
		samples = append(samples, RuntimeSample{Project: "p", Est: h, Ran: time.Duration(x * float64(h))})
	}
	b := snapshot(node(1, "A", 8), node(2, "A", 8)).
		run(running(90, gpus(1, 0, 3)...).started(t0.Add(-3*h)).ends(3*h, 7*h),
			running(91, gpus(2, 0, 3)...).started(t0.Add(-3*h)).ends(3*h, 7*h)).
		queue(pending(1).gpus(8).maxRun(h).ready())
	b.s.Runtimes = NewRuntimes(samples)
	plan := Decide(b.s, t0, DefaultPolicy(time.UTC))
	if len(plan.Waiting) != 1 {
		t.Fatalf("Decide(...) waiting %v, want task 1", plan.Waiting)
	}
	w := plan.Waiting[0]
	if got := w.ETAP50.Sub(t0); got < 36*time.Minute || got > 36*time.Minute+time.Second {
		t.Errorf("Decide(...) p50 in %s, want 36m0s: the first of two nodes, by the odds of their ends", got)
	}
	if got := w.ETAP90.Sub(t0); got != 5*h {
		t.Errorf("Decide(...) p90 in %s, want 5h0m0s: a node whole by its task's max runtime", got)
	}
}
