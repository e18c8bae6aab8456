package pilot

import (
	"testing"
	"time"
)

// TestSeriesKeepsShortPeaks: a day in SeriesPoints stretches keeps a one-minute burst of
// demand in its stretch (the most of it, not the level at the stretch's start), and the
// machines up as they were.
func TestSeriesKeepsShortPeaks(t *testing.T) {
	from := int64(1_700_000_000)
	to := from + 24*3600
	up := levels([]step{{from, 8}, {from + 12*3600, 8}})
	burst := from + 6*3600 + 100 // inside a stretch, after its start
	demand := levels([]step{{from, 4}, {burst, 20}, {burst + 60, -20}})
	s := series(up, demand, from, to)
	if len(s) != SeriesPoints {
		t.Fatalf("series of a day = %d points, want %d", len(s), SeriesPoints)
	}
	var at Point
	for _, p := range s {
		if !p.At.After(time.Unix(burst, 0)) {
			at = p
		}
	}
	if at.DemandGPUs != 24 || at.UpGPUs != 8 {
		t.Errorf("the burst's stretch = %+v, want 24 cards asked of 8 up", at)
	}
	if last := s[len(s)-1]; last.DemandGPUs != 4 || last.UpGPUs != 16 {
		t.Errorf("the last stretch = %+v, want 4 asked of 16 up", last)
	}
	if got := series(up, demand, to, to); got != nil {
		t.Errorf("series of an empty period = %v", got)
	}
}
