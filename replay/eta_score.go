package replay

import (
	"slices"
	"time"
)

// ETAShown is the first estimate of start the queue showed for a task that waited, and
// when the task started.
type ETAShown struct {
	// At is when the estimate was shown; P50 and P90 are the estimated starts (zero when
	// unknown; a task never shown a known P50 has P50 and P90 zero).
	At, P50, P90 time.Time
	// Start is when the task started; zero when it had not started by the end of the
	// reading.
	Start time.Time
}

// ETAScore says how the queue's estimates of start turned out, each waiting task's first
// estimate against its actual wait, both counted from when the estimate was shown.
type ETAScore struct {
	// Tasks counts the waiting tasks scored: those that started, and those not started by
	// the end of the reading whose estimate had already failed. Unknown counts those of
	// them never shown a known p50.
	Tasks   int `json:"tasks"`
	Unknown int `json:"unknown"`
	// P50Within is the share of Tasks whose first p50 was within ±25 % of the actual wait
	// (|estimated − actual| ≤ 0.25 × actual; unknown is not within).
	P50Within float64 `json:"p50_within_25pct"`
	// ByP90 is the share of Tasks that started by their first p90 (unknown is not by it).
	ByP90 float64 `json:"started_by_p90"`
	// MedianRatio is the median of estimated wait ÷ actual wait over the started tasks with
	// a known p50, each wait at least one second; 0 when there is none.
	MedianRatio float64 `json:"median_ratio"`
}

// ETAWithin is how far from the actual wait a p50 may be and still count as right: ±25 %.
const ETAWithin = 0.25

// ScoreETAs scores the estimates shown, read until end. A task not started by end is
// scored only where its estimate had failed by then: its p50 when the wait so far is
// already more than the p50 allowed (estimate ÷ (1 − ETAWithin)), its p90 once passed.
func ScoreETAs(shown []ETAShown, end time.Time) ETAScore {
	var s ETAScore
	var within, byP90 int
	var ratios []float64
	for _, e := range shown {
		known := !e.P50.IsZero()
		est := e.P50.Sub(e.At)
		if e.Start.IsZero() {
			late50 := !known || float64(end.Sub(e.At)) > float64(est)/(1-ETAWithin)
			late90 := e.P90.IsZero() || end.After(e.P90)
			if !late50 || !late90 {
				continue // not decided yet
			}
			s.Tasks++
			if !known {
				s.Unknown++
			}
			continue
		}
		s.Tasks++
		if !known {
			s.Unknown++
			continue
		}
		act := e.Start.Sub(e.At)
		if d := est - act; float64(max(d, -d)) <= ETAWithin*float64(act) {
			within++
		}
		if !e.P90.IsZero() && !e.Start.After(e.P90) {
			byP90++
		}
		ratios = append(ratios, max(est.Seconds(), 1)/max(act.Seconds(), 1))
	}
	if s.Tasks > 0 {
		s.P50Within = float64(within) / float64(s.Tasks)
		s.ByP90 = float64(byP90) / float64(s.Tasks)
	}
	if len(ratios) > 0 {
		slices.Sort(ratios)
		n := len(ratios)
		s.MedianRatio = ratios[n/2]
		if n%2 == 0 {
			s.MedianRatio = (ratios[n/2-1] + ratios[n/2]) / 2
		}
	}
	return s
}
