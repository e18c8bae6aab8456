package views

import (
	"strconv"

	"github.com/a-h/templ"
)

// Bar chart geometry, in SVG user units: a label column, then bars from barX0 to barX1
// scaled to the longest, then the value.
const (
	BarChartW      = 720
	BarLabelX      = 4
	BarX0, BarX1   = 170, 560
	BarValueX      = 568
	BarRowH, BarH  = 26, 16
	BarTop         = 6
	BarLabelRunes  = 22
	reportWeekPath = "/reports?week="
)

// SvgNum formats a coordinate with at most one decimal.
func SvgNum(f float64) string { return strconv.FormatFloat(float64(int64(f*10+0.5))/10, 'f', -1, 64) }

// WeekURL is the report of a week.
func WeekURL(week string) templ.SafeURL { return templ.SafeURL(reportWeekPath + week) }
