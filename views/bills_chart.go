package views

import (
	"kashi/phrase"
)

// Cost chart geometry, in SVG user units: the y axis's labels left of costX0, one column per
// month from costX0 to costX1, the month under costY1. The width is small so that the text
// stays readable when a phone shrinks the chart to its width.
const (
	CostW, CostH             = 600, 290
	CostX0, CostX1           = 92, 592
	CostY0, CostY1           = 14, 236
	costMaxTicks             = 4
	CostColours              = 6 // series classes s0…s5
	CompareLabelRunes        = 12
	CompareX0, CompareX1     = 160, 592
	CompareRowH, CompareBarH = 34, 12
)

// CostTick is a labelled value on the y axis.
type CostTick struct {
	Y     string
	Label string
}

// YAxis is a chart's y axis from zero to top rounded up to a round step, drawn from y1 (zero)
// up to y0: its ticks labelled by label, and where a value goes.
func YAxis(top int64, y0, y1 float64, label func(int64) string) ([]CostTick, func(float64) float64) {
	step := NiceStep(top)
	yTop := max(step, (top+step-1)/step*step)
	y := func(v float64) float64 { return y1 - v/float64(yTop)*(y1-y0) }
	var ticks []CostTick
	for v := int64(0); v <= yTop; v += step {
		ticks = append(ticks, CostTick{Y: SVGNum(y(float64(v))), Label: label(v)})
	}
	return ticks, y
}

// NiceStep is a round step in fen (1, 2 or 5 times a power of ten, at least one yuan)
// that divides top into at most costMaxTicks intervals.
func NiceStep(top int64) int64 {
	for p := int64(100); ; p *= 10 {
		for _, k := range []int64{1, 2, 5} {
			if s := k * p; (top+s-1)/s <= costMaxTicks || s > 1<<60/k {
				return s
			}
		}
	}
}

// YuanTick is a tick's amount, short enough for the axis: whole yuan grouped, in thousands
// (k) from ¥10,000 and in millions (M) from ¥10,000,000. Ticks are round, so nothing is cut.
func YuanTick(fen int64) string {
	y := fen / 100
	switch {
	case y >= 10_000_000 && y%1_000_000 == 0:
		return string(phrase.AppendInt([]byte("¥"), y/1_000_000)) + "M"
	case y >= 10_000 && y%1000 == 0:
		return string(phrase.AppendInt([]byte("¥"), y/1000)) + "k"
	}
	return string(phrase.AppendInt([]byte("¥"), y))
}
