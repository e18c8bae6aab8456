package scheduler

import (
	"testing"
	"time"
)

// TestDecideLeavesCardsUsedOutside: a card used outside Kashi takes no task, and a task
// that would need it waits for free cards.
func TestDecideLeavesCardsUsedOutside(t *testing.T) {
	snap := snapshot(outside(node(1, "A", 8), 2, 7)).
		queue(pending(1).gpus(6).spec("A").ready(), pending(2).gpus(1).spec("A").ready())
	got := Decide(snap.s, t0, DefaultPolicy(time.UTC))
	checkPlan(t, got, map[int64][]int64{1: {gid(1, 0), gid(1, 1), gid(1, 3), gid(1, 4), gid(1, 5), gid(1, 6)}},
		map[int64]Reason{2: ReasonNoFreeGPUs})
}
