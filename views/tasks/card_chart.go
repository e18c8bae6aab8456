package tasks

import (
	"strings"
	"time"

	"kashi/phrase"
	"kashi/views"
)

// The geometry of a card's chart on the task page, in SVG user units: utilization and memory
// (as a share of the card's) from 0 to 100 % up the left axis, the card's holding time along
// the bottom.
const (
	cardW, cardH     = 320, 132
	cardX0, cardX1   = 40, 312
	cardY0, cardY1   = 10, 96
	cardTimeBaseline = 114
)

// cardChartView is a card's chart ready to draw: the two lines, a dot per reading titled with
// its values, the axes' labels, the peak of utilization marked with its value, and the
// figures the legend gives.
type cardChartView struct {
	Util, Mem string
	Dots      []cardDot
	YTicks    []cardTick
	XLabels   []cardTick
	// Peak marks the reading of the highest utilization.
	Peak cardTick
	// UtilPeak, UtilMean and MemPeak are the legend's figures.
	UtilPeak, UtilMean, MemPeak string
}

// cardDot is one reading: where its utilization is, and its time and values.
type cardDot struct{ X, Y, Title string }

// cardTick is a label at X, Y with its anchor.
type cardTick struct{ X, Y, Text, Anchor string }

// cardChartOf lays out a card's readings over its holding time (until now while held).
func cardChartOf(l phrase.Locale, c TaskCardView, now time.Time) cardChartView {
	util := func(p ChartPoint) float64 { return float64(p.UtilPct) / 100 }
	mem := func(p ChartPoint) float64 { return float64(p.MemMiB) / float64(max(c.MemTotalMiB, 1)) }
	v := cardChartView{Util: sparkPoints(c, now, util), Mem: sparkPoints(c, now, mem)}
	for _, pct := range []int{0, 50, 100} {
		y := views.Num(cardY(float64(pct) / 100))
		v.YTicks = append(v.YTicks, cardTick{X: views.Num(cardX0 - 4), Y: y, Text: l.Percent(pct), Anchor: "end"})
	}
	start, end := c.StartedAt, c.EndedAt
	if end.IsZero() {
		end = now
	}
	v.XLabels = []cardTick{
		{X: views.Num(cardX0), Y: views.Num(cardTimeBaseline), Text: views.EventTime(start, now), Anchor: "start"},
		{X: views.Num(cardX1), Y: views.Num(cardTimeBaseline), Text: views.EventTime(end, now), Anchor: "end"},
	}
	if c.EndedAt.IsZero() {
		v.XLabels[1].Text = l.T("task.chart.now")
	}
	var peak ChartPoint
	var sum int
	var memPeak int64
	for i, p := range c.Points {
		x, y := cardX(c, now, p.At), cardY(util(p))
		v.Dots = append(v.Dots, cardDot{X: views.Num(x), Y: views.Num(y),
			Title: l.T("task.chart.point", views.EventTime(p.At, now), l.Percent(p.UtilPct), l.MiBOf(p.MemMiB, c.MemTotalMiB))})
		if i == 0 || p.UtilPct > peak.UtilPct {
			peak = p
		}
		sum += p.UtilPct
		memPeak = max(memPeak, p.MemMiB)
	}
	if len(c.Points) > 0 {
		x := cardX(c, now, peak.At)
		anchor := "middle"
		switch {
		case x < cardX0+24:
			anchor = "start"
		case x > cardX1-24:
			anchor = "end"
		}
		v.Peak = cardTick{X: views.Num(x), Y: views.Num(max(cardY(util(peak))-5, cardY0+8)), Text: l.Percent(peak.UtilPct), Anchor: anchor}
		v.UtilPeak, v.UtilMean = l.Percent(peak.UtilPct), l.Percent(sum/len(c.Points))
		v.MemPeak = l.MiBOf(memPeak, c.MemTotalMiB)
	}
	return v
}

// cardX is where at falls along the card's holding time.
func cardX(c TaskCardView, now, at time.Time) float64 {
	end := c.EndedAt
	if end.IsZero() {
		end = now
	}
	span := end.Sub(c.StartedAt).Seconds()
	if span <= 0 {
		span = 1
	}
	return cardX0 + min(max(at.Sub(c.StartedAt).Seconds()/span, 0), 1)*(cardX1-cardX0)
}

// cardY is where a share (0 to 1) falls up the chart.
func cardY(share float64) float64 { return cardY1 - min(max(share, 0), 1)*(cardY1-cardY0) }

// sparkPoints is the polyline of v (0 to 1) over a card's holding time in the chart's plot.
func sparkPoints(c TaskCardView, now time.Time, v func(ChartPoint) float64) string {
	var b strings.Builder
	for i, p := range c.Points {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(views.Num(cardX(c, now, p.At)))
		b.WriteByte(',')
		b.WriteString(views.Num(cardY(v(p))))
	}
	return b.String()
}

// cardViewBox is the card charts' viewBox.
func cardViewBox() string { return "0 0 " + views.Num(cardW) + " " + views.Num(cardH) }
