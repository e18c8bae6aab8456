package views

import (
	"math"
	"slices"
	"strconv"

	"kashi/phrase"
)

// Helpers of bills_chart.templ: the geometry of the cost charts. Amounts stay integer fen;
// only pixel coordinates are float, computed from them.

// Cost chart geometry, in SVG user units: the y axis's labels left of costX0, one column per
// month from costX0 to costX1, the month under costY1. The width is small so that the text
// stays readable when a phone shrinks the chart to its width.
const (
	costW, costH             = 600, 290
	costX0, costX1           = 92, 592
	costY0, costY1           = 14, 236
	costMaxTicks             = 4
	costColours              = 6 // series classes s0…s5
	compareLabelRunes        = 12
	compareX0, compareX1     = 160, 592
	compareRowH, compareBarH = 34, 12
)

// costChart is the stacked column chart ready to draw.
type costChart struct {
	Height  int
	Columns []costColumn
	YTicks  []costTick
	Legend  []costKey
	Empty   bool
}

// costColumn is one month: its labels, its stacked segments bottom up, and its total.
type costColumn struct {
	X, Month, Year string
	Segments       []costSegment
	Title          string
}

// costSegment is one series' part of a column; Title names it with its amount.
type costSegment struct {
	Class, X, Y, W, H, Title string
}

// costTick is a labelled value on the y axis.
type costTick struct {
	Y     string
	Label string
}

// costKey is one series in the legend.
type costKey struct {
	Class, Label string
}

// compareRow is one project's bars of last month and this month.
type compareRow struct {
	Label, Title       string
	LastW, NowW        string
	LastY, NowY, TextY string
}

// compareChart is the chart of this month against last month.
type compareChart struct {
	Height int
	Rows   []compareRow
}

// costSeriesRow is a series drawn: its class, label and amounts per month.
type costSeriesRow struct {
	Class, Label string
	Fen          []int64
}

// drawnSeries are the series in drawing order, bottom up: the projects, the other
// projects, then idle.
func drawnSeries(l phrase.Locale, t CostTrend) []costSeriesRow {
	var out []costSeriesRow
	for i, s := range t.Series {
		r := costSeriesRow{Class: "s" + strconv.Itoa(i%costColours), Label: s.Project, Fen: s.Fen}
		if s.Other {
			r.Class, r.Label = "s-other", l.T("bills.chart.other")
		}
		out = append(out, r)
	}
	return append(out, costSeriesRow{Class: "s-idle", Label: l.T("bills.chart.idle"), Fen: t.IdleFen})
}

// layoutCost lays out the stacked columns: one per month, its segments the series' costs
// (a negative cost, from a credit, draws nothing), the y axis in round yuan.
func layoutCost(l phrase.Locale, t CostTrend) costChart {
	c := costChart{Height: costH}
	series := drawnSeries(l, t)
	// Heights add up in float: they are pixels; the amounts shown are the exact ones.
	heights := make([]float64, len(t.Months))
	for _, s := range series {
		for m, f := range s.Fen {
			heights[m] += float64(max(f, 0))
		}
	}
	top := int64(min(math.Ceil(slices.Max(append([]float64{0}, heights...))), 1<<62))
	c.Empty = top == 0
	var y func(float64) float64
	c.YTicks, y = yAxis(top, costY0, costY1, yuanTick)
	slot := float64(costX1-costX0) / float64(max(len(t.Months), 1))
	barW := slot * 0.62
	for m, month := range t.Months {
		x := costX0 + slot*float64(m) + (slot-barW)/2
		col := costColumn{X: svgNum(x + barW/2), Month: month[5:], Title: l.T("bills.chart.column", month, yuan(t.TotalFen[m]))}
		// The year under January and under the first month, unless January comes next:
		// two years side by side would overlap on a phone.
		if month[5:] == "01" || m == 0 && (len(t.Months) == 1 || t.Months[1][5:] != "01") {
			col.Year = month[:4]
		}
		var below float64
		for _, s := range series {
			f := float64(max(s.Fen[m], 0))
			if f == 0 {
				continue
			}
			y0, y1 := y(below), y(below+f)
			col.Segments = append(col.Segments, costSegment{Class: s.Class, X: svgNum(x), W: svgNum(barW), Y: svgNum(y1),
				H: svgNum(max(y0-y1, 0.5)), Title: l.T("bills.chart.segment", s.Label, yuan(s.Fen[m]))})
			below += f
		}
		c.Columns = append(c.Columns, col)
	}
	for _, s := range series {
		c.Legend = append(c.Legend, costKey{Class: s.Class, Label: s.Label})
	}
	return c
}

// layoutCompare lays out this month against last month: per project a bar of last month
// over a bar of this month, scaled to the largest.
func layoutCompare(l phrase.Locale, lines []CostLine) compareChart {
	c := compareChart{Height: compareRowH*max(len(lines), 1) + 8}
	var top int64
	for _, s := range lines {
		top = max(top, s.NowFen, s.LastFen)
	}
	w := func(fen int64) string {
		if top <= 0 || fen <= 0 {
			return "0"
		}
		return svgNum(float64(fen) / float64(top) * (compareX1 - compareX0))
	}
	for i, s := range lines {
		y := 4 + i*compareRowH
		c.Rows = append(c.Rows, compareRow{Label: cut(s.Project, compareLabelRunes),
			Title: l.T("bills.compare.row", s.Project, yuan(s.LastFen), yuan(s.NowFen)), LastW: w(s.LastFen), NowW: w(s.NowFen),
			LastY: strconv.Itoa(y + 4), NowY: strconv.Itoa(y + 4 + compareBarH + 2), TextY: strconv.Itoa(y + compareRowH/2 + 6)})
	}
	return c
}

// yAxis is a chart's y axis from zero to top rounded up to a round step, drawn from y1 (zero)
// up to y0: its ticks labelled by label, and where a value goes.
func yAxis(top int64, y0, y1 float64, label func(int64) string) ([]costTick, func(float64) float64) {
	step := niceStep(top)
	yTop := max(step, (top+step-1)/step*step)
	y := func(v float64) float64 { return y1 - v/float64(yTop)*(y1-y0) }
	var ticks []costTick
	for v := int64(0); v <= yTop; v += step {
		ticks = append(ticks, costTick{Y: svgNum(y(float64(v))), Label: label(v)})
	}
	return ticks, y
}

// niceStep is a round step in fen (1, 2 or 5 times a power of ten, at least one yuan)
// that divides top into at most costMaxTicks intervals.
func niceStep(top int64) int64 {
	for p := int64(100); ; p *= 10 {
		for _, k := range []int64{1, 2, 5} {
			if s := k * p; (top+s-1)/s <= costMaxTicks || s > 1<<60/k {
				return s
			}
		}
	}
}

// yuanTick is a tick's amount, short enough for the axis: whole yuan grouped, in thousands
// (k) from ¥10,000 and in millions (M) from ¥10,000,000. Ticks are round, so nothing is cut.
func yuanTick(fen int64) string {
	y := fen / 100
	switch {
	case y >= 10_000_000 && y%1_000_000 == 0:
		return string(phrase.AppendInt([]byte("¥"), y/1_000_000)) + "M"
	case y >= 10_000 && y%1000 == 0:
		return string(phrase.AppendInt([]byte("¥"), y/1000)) + "k"
	}
	return string(phrase.AppendInt([]byte("¥"), y))
}

// diffText is a signed difference: "+¥12.00", "-¥3.50", "¥0.00".
func diffText(fen int64) string {
	if fen > 0 {
		return "+" + yuan(fen)
	}
	return yuan(fen)
}

// diffClass colours a difference: up, down or none.
func diffClass(fen int64) string {
	switch {
	case fen > 0:
		return "up"
	case fen < 0:
		return "down"
	}
	return ""
}
