package services

import (
	"math"
	"slices"
	"strconv"
	"time"

	"kashi/views"
)

// Helpers of models_chart.templ: the geometry of a service's charts over time, in SVG user
// units like the cost charts' (the y axis's labels left of trendX0, one slot per point).
const (
	trendW, trendH   = 600, 180
	trendX0, trendX1 = 92, 592
	trendY0, trendY1 = 14, 136
)

// trendChart is one series over time ready to draw: the line through each run of known
// points, a dot per known point with its value, the y axis, and the first and last times.
type trendChart struct {
	Lines   []string
	Dots    []trendDot
	YTicks  []views.CostTick
	XLabels []trendLabel
	Empty   bool
}

// trendDot is one known point; Title names its time and value.
type trendDot struct{ X, Y, Title string }

// trendLabel is a time under the x axis.
type trendLabel struct{ X, Text, Anchor string }

// layoutTrend lays out values (nil: unknown) at the points' times: the y axis from zero in
// round steps labelled by tick, each dot titled by its time and text(value).
func layoutTrend(at []time.Time, values []*int64, tick, text func(int64) string) trendChart {
	c := trendChart{}
	var top int64
	for _, v := range values {
		if v != nil {
			top = max(top, *v)
		}
	}
	c.Empty = !slices.ContainsFunc(values, func(v *int64) bool { return v != nil })
	var yAt func(float64) float64
	c.YTicks, yAt = views.YAxis(top, trendY0, trendY1, tick)
	y := func(v int64) float64 { return yAt(float64(v)) }
	slot := float64(trendX1-trendX0) / float64(max(len(values), 1))
	x := func(i int) float64 { return trendX0 + slot*(float64(i)+0.5) }
	layout := "01-02 15:04"
	if len(at) > 1 && at[1].Sub(at[0]) >= 24*time.Hour {
		layout = "01-02"
	}
	run := ""
	for i, v := range values {
		if v == nil {
			if run != "" {
				c.Lines = append(c.Lines, run)
			}
			run = ""
			continue
		}
		p := views.SVGNum(x(i)) + "," + views.SVGNum(y(*v))
		if run != "" {
			run += " "
		}
		run += p
		c.Dots = append(c.Dots, trendDot{X: views.SVGNum(x(i)), Y: views.SVGNum(y(*v)), Title: at[i].Format(layout) + " · " + text(*v)})
	}
	if run != "" {
		c.Lines = append(c.Lines, run)
	}
	if len(at) > 0 {
		c.XLabels = append(c.XLabels, trendLabel{X: views.SVGNum(x(0) - slot/2), Text: at[0].Format(layout), Anchor: "start"})
		c.XLabels = append(c.XLabels, trendLabel{X: views.SVGNum(x(len(at)-1) + slot/2), Text: at[len(at)-1].Format(layout), Anchor: "end"})
	}
	return c
}

// ttftTrend is a service's TTFT p95 over time, in whole milliseconds.
func ttftTrend(s ServiceRow) trendChart {
	at, values := make([]time.Time, len(s.Points)), make([]*int64, len(s.Points))
	for i, p := range s.Points {
		at[i] = p.At
		if p.TTFTP95 != nil {
			ms := int64(math.Round(*p.TTFTP95 * 1000))
			values[i] = &ms
		}
	}
	ms := func(v int64) string { s := float64(v) / 1000; return latencyText(&s) }
	return layoutTrend(at, values, ms, ms)
}

// costTrend is a service's cost per million output tokens over time, in fen.
func costTrend(s ServiceRow) trendChart {
	at, values := make([]time.Time, len(s.Points)), make([]*int64, len(s.Points))
	for i, p := range s.Points {
		at[i], values[i] = p.At, p.CostPerMTokFen
	}
	return layoutTrend(at, values, views.YuanTick, views.Yuan)
}

// trendViewBox is the charts' viewBox.
func trendViewBox() string { return "0 0 " + strconv.Itoa(trendW) + " " + strconv.Itoa(trendH) }
