package scheduler

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// etas maps each waiting task of plan to its ETAs.
func etas(plan Plan) map[int64][2]time.Time {
	got := map[int64][2]time.Time{}
	for _, w := range plan.Waiting {
		got[w.TaskID] = [2]time.Time{w.ETAP50, w.ETAP90}
	}
	return got
}

// TestTakeLeavesEarlyCardsFree: a task that cannot start before a later time (a head
// waiting for a node) holds the cards that come free last by then, so that the cards free
// earlier stay for the tasks after it that fit before (the replay's backfill).
func TestTakeLeavesEarlyCardsFree(t *testing.T) {
	h := slots{{t: 0, n: 2}, {t: 10, n: 2}}
	var rp replay
	if got := rp.take(&h, 2, 20, 5, true, false); got != 20 {
		t.Fatalf("take(2 cards from 20) = %d, want 20", got)
	}
	if got := rp.take(&h, 2, 0, 5, true, false); got != 0 {
		t.Errorf("the next take of 2 cards starts at %d, want 0: the cards free from 0 stay free", got)
	}
	if want := (slots{{t: 5, n: 2}, {t: 25, n: 2}}); !slices.Equal(want, h) {
		t.Errorf("cards after both takes = %v, want %v", h, want)
	}
}

// TestETAGrowth: a pool the scaling loop grows brings new machines in its expected boot
// after demand has waited its delay (asked at the loop's next pass), as many as that demand
// needs, again after each cooldown: tasks waiting for cards are expected to start on them
// (p50); the p90 stays the bound of the cards there are.
func TestETAGrowth(t *testing.T) {
	h, m := time.Hour, time.Minute
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	grow := Growth{Spec: "A", AnySpec: true, GPUsPerNode: 8, Room: 2, Batch: 1, Delay: 2 * m, Boot: 3 * m, Every: 10 * m}
	tests := map[string]struct {
		snap snapB
		grow func(*Growth)
		want map[int64][2]time.Time
	}{
		// The demo's 16-card task was estimated 3 minutes for a wait of 14: the loop had
		// asked for the one node the demand past its delay needed, then waited its cooldown.
		"a node for the demand that waited, not the whole batch: the next after the cooldown": {
			snap: snapshot(node(1, "A", 8)).run(running(90, gpus(1, 0, 7)...).ends(5*h, 5*h)).
				queue(pending(1).gpus(8).maxRun(h).ready(), pending(2).gpus(8).maxRun(h).submitted(t0).ready()),
			grow: func(g *Growth) { g.Batch = 2 },
			want: map[int64][2]time.Time{1: {at(3 * m), at(5 * h)}, 2: {at(13 * m), at(6 * h)}},
		},
		"a task of any spec is no demand for a pool that takes only its own spec": {
			snap: snapshot(node(1, "A", 8), node(2, "B", 8)).
				run(running(90, gpus(1, 0, 7)...).ends(5*h, 5*h), running(91, gpus(2, 0, 7)...).ends(h, h)).
				queue(pending(1).gpus(8).maxRun(h).ready()),
			grow: func(g *Growth) { g.AnySpec = false },
			want: map[int64][2]time.Time{1: {at(h), at(h)}},
		},
		"tasks submitted now: a node when their wait passes the delay and it boots, then one a cooldown later": {
			snap: snapshot(node(1, "A", 8)).run(running(90, gpus(1, 0, 7)...).ends(5*h, 5*h)).
				queue(pending(1).gpus(8).maxRun(h).submitted(t0).ready(), pending(2).gpus(8).maxRun(h).submitted(t0).ready()),
			want: map[int64][2]time.Time{1: {at(5 * m), at(5 * h)}, 2: {at(15 * m), at(6 * h)}},
		},
		"demand waiting past the delay: the node boots now": {
			snap: snapshot(node(1, "A", 8)).run(running(90, gpus(1, 0, 7)...).ends(5*h, 5*h)).
				queue(pending(1).gpus(8).maxRun(h).ready()),
			want: map[int64][2]time.Time{1: {at(3 * m), at(5 * h)}},
		},
		"a machine booting comes first": {
			snap: snapshot(node(1, "A", 8)).run(running(90, gpus(1, 0, 7)...).ends(5*h, 5*h)).
				queue(pending(1).gpus(4).maxRun(h).ready()),
			grow: func(g *Growth) { g.Booting = []time.Time{at(m)} },
			want: map[int64][2]time.Time{1: {at(m), at(5 * h)}},
		},
		"the scaling loop asks at its next pass, half its period later on average": {
			snap: snapshot(node(1, "A", 8)).run(running(90, gpus(1, 0, 7)...).ends(5*h, 5*h)).
				queue(pending(1).gpus(8).maxRun(h).ready()),
			grow: func(g *Growth) { g.Period = m },
			want: map[int64][2]time.Time{1: {at(3*m + 30*time.Second), at(5 * h)}},
		},
		"the pool grew a minute ago: the next node waits for its cooldown": {
			snap: snapshot(node(1, "A", 8)).run(running(90, gpus(1, 0, 7)...).ends(5*h, 5*h)).
				queue(pending(1).gpus(8).maxRun(h).ready()),
			grow: func(g *Growth) { g.LastUp = at(-m) },
			want: map[int64][2]time.Time{1: {at(12 * m), at(5 * h)}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			g := grow
			if tc.grow != nil {
				tc.grow(&g)
			}
			tc.snap.s.Growth = []Growth{g}
			if diff := cmp.Diff(tc.want, etas(Decide(tc.snap.s, t0, DefaultPolicy(time.UTC)))); diff != "" {
				t.Errorf("Decide(...) ETAs with growth (-want +got):\n%s", diff)
			}
		})
	}
}

// TestETANodeShape: a task that needs a whole node waits for one, though cards enough are
// free on several.
func TestETANodeShape(t *testing.T) {
	h := time.Hour
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	snap := snapshot(node(1, "A", 4), node(2, "A", 4)).
		run(running(90, gid(1, 0)).ends(10*h, 10*h), running(91, gid(2, 0)).ends(10*h, 10*h)).
		queue(pending(1).gpus(4).maxRun(h).ready(), pending(2).gpus(4).maxRun(h).ready())
	want := map[int64][2]time.Time{1: {at(10 * h), at(10 * h)}, 2: {at(10 * h), at(10 * h)}}
	if diff := cmp.Diff(want, etas(Decide(snap.s, t0, DefaultPolicy(time.UTC)))); diff != "" {
		t.Errorf("Decide(...) ETAs (-want +got):\n%s", diff)
	}
}

// TestETARuntimes: with the project's tasks running half their estimates, a pending task is
// expected to run half its estimate, and a running one to end at half of it, unless it has
// run longer than any did: then its max runtime bounds it. The p90 keeps the max runtimes.
func TestETARuntimes(t *testing.T) {
	h := time.Hour
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	var samples []RuntimeSample
	for range minRuntimeSamples {
		samples = append(samples, RuntimeSample{Project: "p", Est: 4 * h, Ran: 2 * h})
	}
	tests := map[string]struct {
		snap snapB
		want map[int64][2]time.Time
	}{
		"half the estimates": {
			// Task 90 started an hour ago with a 4 h estimate: expected to end at t0+1h.
			snap: snapshot(node(1, "A", 1)).run(running(90, gid(1, 0)).est(4*h).maxRun(10*h)).
				queue(pending(1).est(2*h).maxRun(4*h).ready(), pending(2).maxRun(h).ready()),
			want: map[int64][2]time.Time{1: {at(h), at(9 * h)}, 2: {at(2 * h), at(13 * h)}},
		},
		"a task that outlived every ratio ends by its max runtime": {
			snap: snapshot(node(1, "A", 1)).run(running(90, gid(1, 0)).started(t0.Add(-3 * h)).est(4 * h).maxRun(10 * h)).
				queue(pending(1).maxRun(h).ready()),
			want: map[int64][2]time.Time{1: {at(7 * h), at(7 * h)}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			tc.snap.s.Runtimes = NewRuntimes(samples)
			if diff := cmp.Diff(tc.want, etas(Decide(tc.snap.s, t0, DefaultPolicy(time.UTC)))); diff != "" {
				t.Errorf("Decide(...) ETAs with runtimes (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRuntimesAdd: samples added one by one give the ratios NewRuntimes gives, sorted, per
// project and for all; a sample without an estimate counts for none.
func TestRuntimesAdd(t *testing.T) {
	h := time.Hour
	samples := []RuntimeSample{{"a", 2 * h, h}, {"b", h, 3 * h}, {"a", h, h}, {"a", 0, h}}
	r := Runtimes{}
	for _, s := range samples {
		r.Add(s)
	}
	want := Runtimes{"a": {0.5, 1}, "b": {3}, "": {0.5, 1, 3}}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("Add (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, NewRuntimes(samples)); diff != "" {
		t.Errorf("NewRuntimes (-want +got):\n%s", diff)
	}
}

// TestETAHistoryStretch: once enough tasks of a class started twice as late as their
// estimates said, the next estimates of the class are stretched twofold (p50 by the median,
// p90 by a high quantile); other classes are not, and a stretch never shortens the p90.
func TestETAHistoryStretch(t *testing.T) {
	m := time.Minute
	hist := NewETAHistory()
	for i := range int64(etaMinSamples) {
		id := 100 + i
		shown := Plan{Waiting: []Waiting{{TaskID: id, Reason: ReasonNoFreeGPUs, ETAP50: t0.Add(10 * m), ETAP90: t0.Add(20 * m)}}}
		hist.Note(Snapshot{}, shown, t0)
		hist.Note(Snapshot{}, Plan{Placements: []Placement{{TaskID: id}}}, t0.Add(20*m))
	}
	// One task shown but cancelled is forgotten: it was neither waiting nor placed next.
	hist.Note(Snapshot{}, Plan{Waiting: []Waiting{{TaskID: 7, Reason: ReasonNoFreeGPUs, ETAP50: t0, ETAP90: t0}}}, t0)
	hist.Note(Snapshot{}, Plan{}, t0)
	hist.Note(Snapshot{}, Plan{Placements: []Placement{{TaskID: 7}}}, t0.Add(10*time.Hour))
	var want ETAStretch
	want[etaCapacity].P50, want[etaCapacity].P90 = 2, 1
	if diff := cmp.Diff(want, hist.Stretch()); diff != "" {
		t.Fatalf("Stretch() (-want +got):\n%s", diff)
	}
	snap := snapshot(node(1, "A", 1)).run(running(90, gid(1, 0)).ends(time.Hour, 2*time.Hour)).
		queue(pending(1).maxRun(time.Hour).ready()).s
	snap.Stretch = want
	got := etas(Decide(snap, t0, DefaultPolicy(time.UTC)))
	if w := (map[int64][2]time.Time{1: {t0.Add(2 * time.Hour), t0.Add(2 * time.Hour)}}); !cmp.Equal(w, got) {
		t.Errorf("Decide(...) stretched ETAs = %v, want %v", got, w)
	}
}
