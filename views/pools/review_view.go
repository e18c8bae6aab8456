package pools

import "kashi/phrase"

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
