package models

import (
	"testing"
	"time"
)

// TestBoardLagStretchesWithItsReadTime: a board whose read is costly is read at most every
// lagPerCost times its read time, so its keeper's share of a core stays bounded whatever the
// fleet's size; a cheap read keeps the configured lag.
func TestBoardLagStretchesWithItsReadTime(t *testing.T) {
	for _, tc := range []struct{ lag, cost, want time.Duration }{
		{0, 140 * time.Millisecond, 0},
		{time.Second, 0, time.Second},
		{time.Second, 10 * time.Millisecond, time.Second},
		{time.Second, 140 * time.Millisecond, 2800 * time.Millisecond},
		{5 * time.Second, 100 * time.Millisecond, 5 * time.Second},
	} {
		b := boardCache{lag: tc.lag}
		b.cost.Store(int64(tc.cost))
		if got := b.effectiveLag(); got != tc.want {
			t.Errorf("lag %v, read %v: effective lag %v, want %v", tc.lag, tc.cost, got, tc.want)
		}
	}
}
