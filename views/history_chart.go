package views

import (
	"kashi/phrase"
)

// RangeText is how the range selector writes a range.
func RangeText(l phrase.Locale, r string) string {
	switch r {
	case "1h":
		return l.T("history.range.1h")
	case "7d":
		return l.T("history.range.7d")
	case "30d":
		return l.T("history.range.30d")
	}
	return l.T("history.range.24h")
}
