package bills

import (
	"strconv"
	"unicode/utf8"

	"github.com/a-h/templ"

	"kashi/phrase"
	"kashi/views"
)

// Helpers of reports.templ: the geometry of the stacked bar charts, and links.

// barChart is a stacked horizontal bar chart of card time: one bar per row, its length the
// held card-hours, split into active, idle and the rest.
type barChart struct {
	ID     string
	Title  string
	Desc   string
	Height int
	Rows   []barRow
}

// barRow is one bar: its label (cut to fit; Full in its tooltip), segments and value text.
type barRow struct {
	Y, TextY            string
	Label, Full         string
	Active, Idle, Other barSegment
	Value               string
}

// barSegment is a horizontal extent; W "0" draws nothing.
type barSegment struct{ X, W string }

// usageChart lays out rows as a bar chart with the given id and title.
func usageChart(l phrase.Locale, id, title string, rows []ReportUsage) barChart {
	c := barChart{ID: id, Title: title, Height: views.BarTop*2 + views.BarRowH*max(len(rows), 1)}
	var top int64
	for _, r := range rows {
		top = max(top, r.NominalS)
	}
	scale := func(s int64) float64 {
		if top == 0 {
			return 0
		}
		return float64(s) * (views.BarX1 - views.BarX0) / float64(top)
	}
	for i, r := range rows {
		y := views.BarTop + i*views.BarRowH
		x := float64(views.BarX0)
		seg := func(s int64) barSegment {
			w := scale(s)
			sg := barSegment{X: views.SVGNum(x), W: views.SVGNum(w)}
			x += w
			return sg
		}
		br := barRow{Y: strconv.Itoa(y + (views.BarRowH-views.BarH)/2), TextY: strconv.Itoa(y + views.BarRowH/2 + 4), Full: r.Key,
			Label: cut(r.Key, views.BarLabelRunes)}
		br.Active = seg(r.EffectiveS)
		br.Idle = seg(r.IdleS)
		br.Other = seg(max(0, r.NominalS-r.EffectiveS-r.IdleS))
		br.Value = l.T("report.chart.value", phrase.Hours(r.NominalS), l.Percent(phrase.Share(r.EffectiveS, r.NominalS)))
		c.Rows = append(c.Rows, br)
	}
	c.Desc = l.T("report.chart.desc")
	return c
}

// idleTaskUsage turns the most idle tasks into chart rows.
func idleTaskUsage(ts []ReportIdleTask) []ReportUsage {
	out := make([]ReportUsage, len(ts))
	for i, t := range ts {
		out[i] = ReportUsage{Key: "#" + strconv.FormatInt(t.TaskID, 10) + " " + t.Task, NominalS: t.NominalS,
			EffectiveS: t.EffectiveS, IdleS: t.IdleS}
	}
	return out
}

// cut shortens s to n runes with an ellipsis.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// weekCSV is the report's download.
func weekCSV(week string) templ.SafeURL { return templ.SafeURL("/reports.csv?week=" + week) }

func weekXLSX(week string) templ.SafeURL { return templ.SafeURL("/reports.xlsx?week=" + week) }

// perUnitText is card-seconds per output unit as card-hours with two decimals, or four
// when it is under a hundredth of an hour.
func perUnitText(s int64) string {
	if s >= 36 {
		return phrase.Hours(s)
	}
	return strconv.FormatFloat(float64(s)/3600, 'f', 4, 64)
}

// missText is a task's miss against its estimate: signed hours and the share of the
// estimate, "+3.00 (+150%)" when it took longer than estimated, "-1.00 (-25%)" when less.
func missText(l phrase.Locale, missS, estimatedS int64) string {
	sign := "+"
	if missS < 0 {
		sign = "-"
	}
	return l.T("report.miss_value", sign+phrase.Hours(max(missS, -missS)), sign+strconv.FormatInt(max(missS, -missS)*100/max(1, estimatedS), 10))
}
