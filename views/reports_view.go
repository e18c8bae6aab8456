package views

import (
	"strconv"
)

// Bar chart geometry, in SVG user units: a label column, then bars from barX0 to barX1
// scaled to the longest, then the value.
const (
	BarChartW     = 720
	BarLabelX     = 4
	BarX0, BarX1  = 170, 560
	BarValueX     = 568
	BarRowH, BarH = 26, 16
	BarTop        = 6
	BarLabelRunes = 22
)

// SVGNum formats a coordinate with at most one decimal.
func SVGNum(f float64) string { return strconv.FormatFloat(float64(int64(f*10+0.5))/10, 'f', -1, 64) }
