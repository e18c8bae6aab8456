package pools

import (
	"time"

	"kashi/phrase"
	"kashi/views"
)

// secs is whole seconds as a duration.
func secs(s int64) time.Duration { return time.Duration(s) * time.Second }

// cardHours writes card-seconds as card-hours with one decimal.
func cardHours(l phrase.Locale, s int64) string {
	return l.T("review.card_hours", views.Num(float64(s)/3600))
}

// peakCaught says whether the scaling loop caught a peak, and why not.
func peakCaught(l phrase.Locale, p PeakView) string {
	switch {
	case p.Absorbed:
		return l.T("review.caught_yes")
	case p.AtMax:
		return l.T("review.caught_at_max")
	case p.Grew:
		return l.T("review.caught_late")
	}
	return l.T("review.caught_no")
}
