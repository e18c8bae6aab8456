package board

import (
	"math"
	"strconv"
	"strings"
	"time"

	"kashi/phrase"
	"kashi/views"
)

// Charts of the GPU and node pages: one small SVG per metric, drawn on the server with the
// pool chart's geometry (pools_view.go): a line of the bucket means over a band up to the
// bucket peaks.

// historyChart is one metric's chart ready to draw.
type historyChart struct {
	Line, Band     string // SVG path data; "" without points
	YTicks, XTicks []views.ChartTick
	Empty          bool
}

// metric picks one series of a point: the mean, the peak, and whether the point has it.
type metric func(p HistoryPoint) (mean, peak float64, ok bool)

func utilMetric(p HistoryPoint) (float64, float64, bool) { return p.Util, p.UtilMax, true }
func memMetric(p HistoryPoint) (float64, float64, bool)  { return p.Mem / 1024, p.MemMax / 1024, true }
func tempMetric(p HistoryPoint) (float64, float64, bool) { return p.TempC, p.TempMax, p.HasEnv }
func powerMetric(p HistoryPoint) (float64, float64, bool) {
	return p.PowerW, p.PowerMax, p.HasEnv
}

// layoutHistory lays out one metric of d with top as the least top of the y axis.
func layoutHistory(d HistoryData, m metric, top float64) historyChart {
	var c historyChart
	for _, p := range d.Points {
		if _, peak, ok := m(p); ok {
			top = max(top, peak)
		}
	}
	step := 1.0
	for _, s := range []float64{1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10000} {
		step = s
		if math.Ceil(top/s) <= views.ChartMaxTicksY {
			break
		}
	}
	yTop := math.Max(step, math.Ceil(top/step)*step)
	y := func(v float64) float64 { return views.ChartY1 - v/yTop*(views.ChartY1-views.ChartY0) }
	span := d.Now.Sub(d.From)
	x := func(t time.Time) float64 {
		f := float64(t.Sub(d.From)) / float64(span)
		return views.ChartX0 + max(0, min(1, f))*(views.ChartX1-views.ChartX0)
	}
	for v := 0.0; v <= yTop+step/2; v += step {
		c.YTicks = append(c.YTicks, views.ChartTick{Pos: y(v), Label: strconv.FormatFloat(v, 'f', -1, 64), Anchor: "end"})
	}
	c.XTicks = views.TimeTicks(d.From, d.Now, x)
	var line, band strings.Builder
	var run []HistoryPoint // the points of the current unbroken run, for the band
	flush := func() {
		if len(run) == 0 {
			return
		}
		// The band goes along the peaks, then back along the means.
		for i, p := range run {
			_, peak, _ := m(p)
			cmd := "L"
			if i == 0 {
				cmd = "M"
			}
			band.WriteString(cmd + views.Num(x(p.At)) + " " + views.Num(y(peak)))
		}
		for i := len(run) - 1; i >= 0; i-- {
			mean, _, _ := m(run[i])
			band.WriteString("L" + views.Num(x(run[i].At)) + " " + views.Num(y(mean)))
		}
		band.WriteString("Z")
		run = run[:0]
	}
	var prev time.Time
	for _, p := range d.Points {
		mean, _, ok := m(p)
		if !ok {
			continue
		}
		cmd := "L"
		if len(run) == 0 || p.At.Sub(prev) > d.Step {
			flush()
			cmd = "M"
		}
		line.WriteString(cmd + views.Num(x(p.At)) + " " + views.Num(y(mean)))
		run = append(run, p)
		prev = p.At
	}
	flush()
	c.Line, c.Band, c.Empty = line.String(), band.String(), line.Len() == 0
	return c
}

// holdEnd is the end of a hold as the table shows it.
func holdEnd(l phrase.Locale, h HoldView, now time.Time) string {
	if h.Until == nil {
		return l.T("history.held_now")
	}
	return views.EventTime(h.Until.In(now.Location()), now)
}
