package billing

import (
	"fmt"
	"time"
	_ "time/tzdata" // zones resolve on hosts without a zoneinfo database
)

// Month is a calendar month of the billing time zone.
type Month struct {
	Year  int
	Month time.Month
}

// Years a month may fall in; others are refused, so month arithmetic and time bounds stay
// far from the edges of time.Time and of Unix seconds.
const (
	MinYear = 2000
	MaxYear = 2999
)

// ParseMonth reads "YYYY-MM" of a year from MinYear to MaxYear. "2026-13", "0000-01" and the
// like are errors.
func ParseMonth(s string) (Month, error) {
	if len(s) != 7 {
		return Month{}, fmt.Errorf("billing: month %q is not YYYY-MM", s)
	}
	t, err := time.Parse("2006-01", s)
	if err != nil {
		return Month{}, fmt.Errorf("billing: month %q is not YYYY-MM", s)
	}
	if t.Year() < MinYear || t.Year() > MaxYear {
		return Month{}, fmt.Errorf("billing: month %q is not between %d and %d", s, MinYear, MaxYear)
	}
	return Month{t.Year(), t.Month()}, nil
}

// MonthOf is the month that holds t in loc.
func MonthOf(t time.Time, loc *time.Location) Month {
	t = t.In(loc)
	return Month{t.Year(), t.Month()}
}

// String is "YYYY-MM".
func (m Month) String() string { return fmt.Sprintf("%04d-%02d", m.Year, int(m.Month)) }

// Next is the month after m.
func (m Month) Next() Month {
	if m.Month == time.December {
		return Month{m.Year + 1, time.January}
	}
	return Month{m.Year, m.Month + 1}
}

// Bounds returns the month's period [from, to) in UTC: local midnight of the 1st in loc to
// local midnight of the next 1st. In a zone with daylight saving the month may be an hour
// shorter or longer than its days × 24.
func (m Month) Bounds(loc *time.Location) (from, to time.Time) {
	n := m.Next()
	from = time.Date(m.Year, m.Month, 1, 0, 0, 0, 0, loc).UTC()
	to = time.Date(n.Year, n.Month, 1, 0, 0, 0, 0, loc).UTC()
	return from, to
}

// Span is a half-open interval [Start, End) of Unix seconds.
type Span struct {
	Start, End int64
}

// Seconds is the span's length, 0 when empty.
func (s Span) Seconds() int64 { return max(0, s.End-s.Start) }

// Clip is the part of s inside w.
func (s Span) Clip(w Span) Span {
	return Span{max(s.Start, w.Start), min(s.End, w.End)}
}
