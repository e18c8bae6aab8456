package services

import (
	"strconv"

	"github.com/a-h/templ"

	"kashi/views"
)

// Helpers of models.templ.

// latencyText writes seconds as milliseconds under a second ("120 ms") and as seconds above
// ("1.25 s"); "—" for nil.
func latencyText(s *float64) string {
	switch {
	case s == nil:
		return "—"
	case *s < 1:
		return strconv.FormatFloat(*s*1000, 'f', 0, 64) + " ms"
	}
	return strconv.FormatFloat(*s, 'f', 2, 64) + " s"
}

// rateText writes a rate per second with one decimal, or two under one.
func perSecond(v float64) string {
	if v < 1 {
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// maybeYuan is yuan for a known amount, "—" for nil.
func maybeYuan(fen *int64) string {
	if fen == nil {
		return "—"
	}
	return views.Yuan(*fen)
}

func modelsRangeURL(r string) templ.SafeURL { return templ.SafeURL("/models?range=" + r) }
