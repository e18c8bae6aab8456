package bills

import (
	"math"
	"slices"
	"strconv"

	"kashi/phrase"
	"kashi/views"
)

// Helpers of bills_chart.templ: the geometry of the cost charts. Amounts stay integer fen;
// only pixel coordinates are float, computed from them.

// costChart is the stacked column chart ready to draw.
type costChart struct {
	Height  int
	Columns []costColumn
	YTicks  []views.CostTick
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
		r := costSeriesRow{Class: "s" + strconv.Itoa(i%views.CostColours), Label: s.Project, Fen: s.Fen}
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
	c := costChart{Height: views.CostH}
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
	c.YTicks, y = views.YAxis(top, views.CostY0, views.CostY1, views.YuanTick)
	slot := float64(views.CostX1-views.CostX0) / float64(max(len(t.Months), 1))
	barW := slot * 0.62
	for m, month := range t.Months {
		x := views.CostX0 + slot*float64(m) + (slot-barW)/2
		col := costColumn{X: views.SVGNum(x + barW/2), Month: month[5:], Title: l.T("bills.chart.column", month, views.Yuan(t.TotalFen[m]))}
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
			col.Segments = append(col.Segments, costSegment{Class: s.Class, X: views.SVGNum(x), W: views.SVGNum(barW), Y: views.SVGNum(y1),
				H: views.SVGNum(max(y0-y1, 0.5)), Title: l.T("bills.chart.segment", s.Label, views.Yuan(s.Fen[m]))})
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
	c := compareChart{Height: views.CompareRowH*max(len(lines), 1) + 8}
	var top int64
	for _, s := range lines {
		top = max(top, s.NowFen, s.LastFen)
	}
	w := func(fen int64) string {
		if top <= 0 || fen <= 0 {
			return "0"
		}
		return views.SVGNum(float64(fen) / float64(top) * (views.CompareX1 - views.CompareX0))
	}
	for i, s := range lines {
		y := 4 + i*views.CompareRowH
		c.Rows = append(c.Rows, compareRow{Label: cut(s.Project, views.CompareLabelRunes),
			Title: l.T("bills.compare.row", s.Project, views.Yuan(s.LastFen), views.Yuan(s.NowFen)), LastW: w(s.LastFen), NowW: w(s.NowFen),
			LastY: strconv.Itoa(y + 4), NowY: strconv.Itoa(y + 4 + views.CompareBarH + 2), TextY: strconv.Itoa(y + views.CompareRowH/2 + 6)})
	}
	return c
}

// diffText is a signed difference: "+¥12.00", "-¥3.50", "¥0.00".
func diffText(fen int64) string {
	if fen > 0 {
		return "+" + views.Yuan(fen)
	}
	return views.Yuan(fen)
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
