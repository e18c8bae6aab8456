package pools

import (
	"math"
	"strconv"
	"time"

	"kashi/phrase"
	"kashi/views"
)

// The cost-versus-wait chart's plot area, in SVG user units.
const (
	calX0, calX1 = 100, 700
	calY0, calY1 = 20, 196
)

// costWait is the cost-versus-wait chart ready to draw: a numbered point per setting (the
// number is its row's in the table), and both axes' ticks from zero.
type costWait struct {
	Points         []chartPoint
	XTicks, YTicks []chartTick
}

// chartPoint is one setting on the cost-versus-wait chart: where, its number (with those of
// the points at the same place; "" when an earlier point's label has it), and its setting
// with its figures.
type chartPoint struct {
	X, Y   float64
	Number string
	Label  string
}

// LabelX is where the point's number goes: to its right, or to its left near the
// chart's right edge, where it would be cut.
func (p chartPoint) LabelX() string {
	if p.X > calX1-60 {
		return views.Num(p.X - 7)
	}
	return views.Num(p.X + 7)
}

// LabelY is the baseline of the point's number: above the point, or below it near the
// chart's top.
func (p chartPoint) LabelY() string {
	if p.Y < calY0+24 {
		return views.Num(p.Y + 20)
	}
	return views.Num(p.Y - 7)
}

// LabelAnchor is the text-anchor of the point's number (see LabelX).
func (p chartPoint) LabelAnchor() string {
	if p.X > calX1-60 {
		return "end"
	}
	return "start"
}

// chartTick is an axis's label at a position (x for the wait axis, y for the cost axis).
type chartTick struct {
	At    float64
	Label string
}

// costWaitChart places each row at its mean wait (x) and its cost (y), both axes from zero to
// the highest, ticked at zero, half and the highest; without prices (priced false) the idle
// card-hours stand in for the cost.
func costWaitChart(l phrase.Locale, rows []CalibrateRow, priced bool) costWait {
	cost := func(r CalibrateRow) float64 {
		if priced {
			return float64(r.CostFen)
		}
		return r.IdleH
	}
	costText := func(v float64, yuan func(int64) string) string {
		if priced {
			return yuan(int64(v + 0.5))
		}
		return l.T("calibrate.idle_h", strconv.FormatFloat(v, 'f', 1, 64))
	}
	maxW, maxC := 1.0, 1.0
	for _, r := range rows {
		maxW, maxC = max(maxW, r.MeanWaitS), max(maxC, cost(r))
	}
	x := func(w float64) float64 { return calX0 + w/maxW*(calX1-calX0) }
	y := func(c float64) float64 { return calY1 - c/maxC*(calY1-calY0) }
	var c costWait
	for _, f := range []float64{0, 0.5, 1} {
		c.XTicks = append(c.XTicks, chartTick{At: x(f * maxW), Label: l.Duration(seconds(f * maxW))})
		c.YTicks = append(c.YTicks, chartTick{At: y(f * maxC), Label: costText(f*maxC, views.YuanTick)})
	}
	for i, r := range rows {
		p := chartPoint{X: x(r.MeanWaitS), Y: y(cost(r)), Number: strconv.Itoa(i + 1),
			Label: l.T("calibrate.point", i+1, r.Setting, costText(cost(r), views.Yuan), l.Duration(seconds(r.MeanWaitS)))}
		// Points that fall together share one label ("1, 3"), which would otherwise be drawn
		// over each other.
		for j := range c.Points {
			if q := &c.Points[j]; q.Number != "" && math.Abs(q.X-p.X) < 8 && math.Abs(q.Y-p.Y) < 8 {
				q.Number += ", " + p.Number
				p.Number = ""
				break
			}
		}
		c.Points = append(c.Points, p)
	}
	return c
}

// seconds is s seconds as a duration, to the second.
func seconds(s float64) time.Duration { return time.Duration(s) * time.Second }

// tickAnchor anchors the first of n ticks at its start and the last at its end, so that
// neither leaves the chart.
func tickAnchor(i, n int) string {
	switch i {
	case 0:
		return "start"
	case n - 1:
		return "end"
	}
	return "middle"
}
