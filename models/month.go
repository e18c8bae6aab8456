package models

import "time"

// MonthStart is the first instant of now's month in loc (UTC when nil): budgets and bills are
// per calendar month in the billing time zone.
func MonthStart(now time.Time, loc *time.Location) time.Time {
	if loc == nil {
		loc = time.UTC
	}
	l := now.In(loc)
	return time.Date(l.Year(), l.Month(), 1, 0, 0, 0, 0, loc)
}
