package scheduler

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestQuotaETAFollowsTheScheduler: with exact runtimes, nothing submitted later and cards to
// spare, every task of a project under a concurrent limit starts exactly when its first
// estimate said: the estimate replays the rule the scheduler applies to a limit's places,
// tick after tick, with and without backfill.
func TestQuotaETAFollowsTheScheduler(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 6))
	for round := range 200 {
		limit := 4 + rng.IntN(13)
		var queue []taskB
		var runs []time.Duration
		for id := int64(1); id <= int64(5+rng.IntN(20)); id++ {
			run := time.Duration(1+rng.IntN(12)) * 10 * time.Minute
			b := pending(id).project("q").spec("A").gpus(1 + rng.IntN(limit)).est(run).maxRun(run).ready()
			queue = append(queue, b)
			runs = append(runs, run)
		}
		pol := DefaultPolicy(time.UTC)
		pol.Backfill = round%4 != 0
		first := map[int64]time.Time{}
		started := map[int64]time.Time{}
		var holders []runB
		now := t0
		for len(started) < len(queue) {
			var left []taskB
			for _, b := range queue {
				if _, ok := started[b.p.ID]; !ok {
					left = append(left, b)
				}
			}
			snap := snapshot(node(1, "A", 64), node(2, "A", 64)).run(holders...).queue(left...).
				quota("q", QuotaState{MaxGPUsBySpec: map[string]int{"A": limit}}).s
			plan := Decide(snap, now, pol)
			for _, w := range plan.Waiting {
				if _, ok := first[w.TaskID]; !ok {
					first[w.TaskID] = w.ETAP50
				}
			}
			for _, p := range plan.Placements {
				started[p.TaskID] = now
				holders = append(holders, running(p.TaskID, p.GPUIDs...).project("q").started(now).
					est(runs[p.TaskID-1]).maxRun(runs[p.TaskID-1]))
			}
			// The next end.
			next := time.Time{}
			var still []runB
			for _, r := range holders {
				end := r.r.StartedAt.Add(r.r.EstRuntime)
				if end.After(now) {
					still = append(still, r)
					if next.IsZero() || end.Before(next) {
						next = end
					}
				}
			}
			holders = still
			if next.IsZero() {
				if len(started) < len(queue) {
					t.Fatalf("round %d: nothing runs and %d tasks wait", round, len(queue)-len(started))
				}
				break
			}
			// Those ending at next leave the snapshot.
			now = next
			still = still[:0]
			for _, r := range holders {
				if r.r.StartedAt.Add(r.r.EstRuntime).After(now) {
					still = append(still, r)
				}
			}
			holders = still
		}
		for _, b := range queue {
			id := b.p.ID
			if e, ok := first[id]; ok && !e.Equal(started[id]) {
				t.Fatalf("round %d (limit %d, backfill %v): task %d (%d cards) first estimated to start at +%s, started at +%s",
					round, limit, pol.Backfill, id, b.p.GPUs, e.Sub(t0), started[id].Sub(t0))
			}
		}
	}
}
