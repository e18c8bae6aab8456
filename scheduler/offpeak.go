package scheduler

import "time"

// InOffPeak reports whether now falls in the policy's off-peak window, read on the wall clock
// of pol.Location. Without a window (start == end) it is always true: nothing is deferred.
func InOffPeak(now time.Time, pol Policy) bool {
	pol = pol.normalized()
	return inWindow(sinceMidnight(now.In(pol.Location)), pol.OffPeakStart, pol.OffPeakEnd)
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
