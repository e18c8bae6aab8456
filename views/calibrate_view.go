package views

import "time"

// chartPoint is one setting on the cost-versus-wait chart.
type chartPoint struct {
	X, Y  float64
	Label string
}

// costWaitChart places each row at its mean wait (x) and cost (y) in the chart's plot area
// (60–700 by 20–200), both axes from zero.
func costWaitChart(rows []CalibrateRow) []chartPoint {
	maxW, maxC := 1.0, 1.0
	for _, r := range rows {
		maxW, maxC = max(maxW, r.MeanWaitS), max(maxC, float64(r.CostFen))
	}
	out := make([]chartPoint, len(rows))
	for i, r := range rows {
		out[i] = chartPoint{X: 60 + r.MeanWaitS/maxW*640, Y: 200 - float64(r.CostFen)/maxC*180, Label: r.Setting}
	}
	return out
}

// seconds is s seconds as a duration, to the second.
func seconds(s float64) time.Duration { return time.Duration(s) * time.Second }
