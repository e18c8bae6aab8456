package views

import (
	"math"
	"strconv"
	"time"

	"kashi/phrase"
)

// Chart geometry, in SVG user units: the plot area lies inside the margins.
const (
	chartW, chartH                     = 720, 220
	ChartX0, ChartX1, ChartY0, ChartY1 = 44, chartW - 12, 12, chartH - 34
	chartMaxTicksX, ChartMaxTicksY     = 7, 5
)

// ChartTick is one labelled tick: its position along the axis, its label, and how the
// label is anchored (time labels near the plot's ends keep inside it).
type ChartTick struct {
	Pos    float64
	Label  string
	Anchor string
}

// timeSteps are the tick steps of the time axis.
var timeSteps = []time.Duration{5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute, time.Hour,
	2 * time.Hour, 3 * time.Hour, 4 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour, 48 * time.Hour, 7 * 24 * time.Hour}

// TimeTicks are the labelled times of the x axis: whole multiples of a step that gives at
// most chartMaxTicksX ticks, in to's location.
func TimeTicks(from, to time.Time, x func(time.Time) float64) []ChartTick {
	span := to.Sub(from)
	step := timeSteps[len(timeSteps)-1]
	for _, s := range timeSteps {
		if span/s <= chartMaxTicksX {
			step = s
			break
		}
	}
	loc := to.Location()
	layout := "15:04"
	switch {
	case step >= 24*time.Hour: // ticks at midnight: the day says it
		layout = "01-02"
	case span > 24*time.Hour:
		layout = "01-02 15:04"
	}
	// Align to the step in local time: from local midnight of from's day.
	fl := from.In(loc)
	t := time.Date(fl.Year(), fl.Month(), fl.Day(), 0, 0, 0, 0, loc)
	for t.Before(from) {
		t = t.Add(step)
	}
	var out []ChartTick
	for ; !t.After(to); t = t.Add(step) {
		anchor := "middle"
		switch pos := x(t); {
		case pos < ChartX0+20:
			anchor = "start"
		case pos > ChartX1-20:
			anchor = "end"
		}
		out = append(out, ChartTick{x(t), t.In(loc).Format(layout), anchor})
	}
	return out
}

// Num writes a coordinate with one decimal at most.
func Num(f float64) string {
	return strconv.FormatFloat(math.Round(f*10)/10, 'f', -1, 64)
}

// NodeStateText names a node's state.
func NodeStateText(l phrase.Locale, state string) string {
	switch state {
	case "draining":
		return l.T("node.state.draining")
	case "lost":
		return l.T("node.state.lost")
	}
	return l.T("node.state.ready")
}

// EventTime writes an event's time: the time of day today, the date before.
func EventTime(at, now time.Time) string {
	at = at.In(now.Location())
	y1, m1, d1 := at.Date()
	y2, m2, d2 := now.Date()
	if y1 == y2 && m1 == m2 && d1 == d2 {
		return at.Format("15:04:05")
	}
	return at.Format("2006-01-02 15:04")
}

// FullTime writes an instant for a title attribute.
func FullTime(at, now time.Time) string {
	return at.In(now.Location()).Format("2006-01-02 15:04:05 MST")
}
