package scheduler

import "time"

// InOffPeak reports whether now falls in the policy's off-peak window, read on the wall clock
// of pol.Location. Without a window (start == end) it is always true: nothing is deferred.
func InOffPeak(now time.Time, pol Policy) bool {
	pol = pol.normalized()
	return inWindow(sinceMidnight(now.In(pol.Location)), pol.OffPeakStart, pol.OffPeakEnd)
}

// NextOffPeak is the first instant at or after now inside the off-peak window.
func NextOffPeak(now time.Time, pol Policy) time.Time {
	pol = pol.normalized()
	if InOffPeak(now, pol) {
		return now
	}
	local := now.In(pol.Location)
	s := pol.OffPeakStart
	h, m, sec := int(s/time.Hour), int(s%time.Hour/time.Minute), int(s%time.Minute/time.Second)
	y, mo, d := local.Date()
	next := time.Date(y, mo, d, h, m, sec, int(s%time.Second), pol.Location)
	if !next.After(now) {
		next = time.Date(y, mo, d+1, h, m, sec, int(s%time.Second), pol.Location)
	}
	return next
}

func sinceMidnight(t time.Time) time.Duration {
	h, m, s := t.Clock()
	return time.Duration(h)*time.Hour + time.Duration(m)*time.Minute +
		time.Duration(s)*time.Second + time.Duration(t.Nanosecond())
}

func inWindow(tod, start, end time.Duration) bool {
	switch {
	case start == end:
		return true
	case start < end:
		return tod >= start && tod < end
	default:
		return tod >= start || tod < end
	}
}
