package tasks

import (
	"kashi/phrase"
	"kashi/views"
)

// Why a task runs where it does, the values of QueueRow.PlaceWhy (the scheduler's).
const (
	WhyDataRegion = "data-region"
	WhyOnly       = "only"
	WhyFirstFree  = "first-free"
	WhyEarliest   = "earliest"
)

// whereText says where a queued task starts or is expected to start, and why there: shown
// when there was a choice or a region; "" when it is unknown or says nothing new (the one
// spec it asked, no regions).
func whereText(l phrase.Locale, r views.QueueRow) string {
	if r.PlaceWhy == "" || r.PlaceWhy == WhyOnly && r.PlaceRegion == "" {
		return ""
	}
	at := r.PlaceSpec
	if r.PlaceRegion != "" {
		at = l.T("where.at", r.PlaceSpec, r.PlaceRegion)
	}
	switch r.PlaceWhy {
	case WhyDataRegion:
		return l.T("where.data_region", at)
	case WhyFirstFree:
		return l.T("where.first_free", at)
	case WhyEarliest:
		return l.T("where.earliest", at)
	}
	return l.T("where.only", at)
}
