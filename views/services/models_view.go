package services

import (
	"strconv"

	"github.com/a-h/templ"

	"kashi/phrase"
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

// costMissing says why a service's costs are not shown: the viewer may not see them, its spec
// has no price, or no request came.
func costMissing(l phrase.Locale, s ServiceRow) string {
	switch {
	case s.CostHidden:
		return l.T("models.cost_hidden")
	case s.Unpriced:
		return l.T("models.cost_unpriced", s.Spec)
	}
	return l.T("models.trend_none")
}

// costTitle is the title of a service's cost cells: why they are empty, when it is not for
// want of requests.
func costTitle(l phrase.Locale, s ServiceRow) string {
	if s.CostHidden || s.Unpriced {
		return costMissing(l, s)
	}
	return ""
}

func modelsRangeURL(r string) templ.SafeURL { return templ.SafeURL("/models?range=" + r) }
