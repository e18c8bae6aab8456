package models

import (
	"testing"
	"time"
)

// TestLiveViewKeepsTheNewerReading: two groups committed at once (Postgres) may record a
// GPU's readings out of order; the view keeps the newer, and marks it to be written.
func TestLiveViewKeepsTheNewerReading(t *testing.T) {
	var v liveView
	t1 := time.Date(2026, 12, 7, 8, 0, 0, 0, time.UTC)
	t2 := t1.Add(10 * time.Second)
	v.record([]GPU{{ID: 1, UtilPct: 90, SampledAt: &t2}}, nil)
	v.record([]GPU{{ID: 1, UtilPct: 10, SampledAt: &t1}}, nil)
	gs := []GPU{{ID: 1}}
	v.overlayGPUs(gs)
	if gs[0].SampledAt == nil || !gs[0].SampledAt.Equal(t2) || gs[0].UtilPct != 90 {
		t.Errorf("the view after readings at %v then %v shows %v, %d %%; want the newer, 90 %%", t2, t1, gs[0].SampledAt, gs[0].UtilPct)
	}
	if dirty := v.takeDirty(); len(dirty) != 1 || !dirty[0].SampledAt.Equal(t2) {
		t.Errorf("to be written: %+v, want the newer reading", dirty)
	}
}
