package pools

import "time"

// chartPoint is one setting on the cost-versus-wait chart.
type chartPoint struct {
	X, Y  float64
	Label string
}

// costWaitChart places each row at its mean wait (x) and its cost (y) in the chart's plot
// area (60–700 by 20–200), both axes from zero; without prices (priced false) the idle
// card-hours stand in for the cost.
func costWaitChart(rows []CalibrateRow, priced bool) []chartPoint {
	cost := func(r CalibrateRow) float64 {
		if priced {
			return float64(r.CostFen)
		}
		return r.IdleH
	}
	maxW, maxC := 1.0, 1.0
	for _, r := range rows {
		maxW, maxC = max(maxW, r.MeanWaitS), max(maxC, cost(r))
	}
	out := make([]chartPoint, len(rows))
	for i, r := range rows {
		out[i] = chartPoint{X: 60 + r.MeanWaitS/maxW*640, Y: 200 - cost(r)/maxC*180, Label: r.Setting}
	}
	return out
}

// seconds is s seconds as a duration, to the second.
func seconds(s float64) time.Duration { return time.Duration(s) * time.Second }
