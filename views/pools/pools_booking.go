package pools

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"kashi/phrase"
	"kashi/views"
)

// bookedStep is the number of cards booked from one time to the next.
type bookedStep struct {
	from, to time.Time
	cards    int
}

// bookedSteps cuts the range from–to where a booking's window starts or ends, and sums the
// cards booked in each piece; pieces with none are left out.
func bookedSteps(bs []PoolBooking, from, to time.Time) []bookedStep {
	cuts := []time.Time{from, to}
	for _, b := range bs {
		for _, t := range []time.Time{b.Starts, b.Ends} {
			if t.After(from) && t.Before(to) {
				cuts = append(cuts, t)
			}
		}
	}
	slices.SortFunc(cuts, func(a, b time.Time) int { return a.Compare(b) })
	cuts = slices.CompactFunc(cuts, time.Time.Equal)
	var out []bookedStep
	for i := 0; i+1 < len(cuts); i++ {
		s := bookedStep{from: cuts[i], to: cuts[i+1]}
		for _, b := range bs {
			if !b.Starts.After(s.from) && !b.Ends.Before(s.to) {
				s.cards += b.GPUs
			}
		}
		if s.cards > 0 {
			out = append(out, s)
		}
	}
	return out
}

// bookedPath is one rectangle per step, from the axis up to its cards in nodes of gpn cards.
func bookedPath(steps []bookedStep, gpn float64, x func(time.Time) float64, y func(float64) float64) string {
	var b strings.Builder
	for _, s := range steps {
		b.WriteString("M" + views.Num(x(s.from)) + " " + views.Num(y(0)) + "H" + views.Num(x(s.to)) + "V" + views.Num(y(float64(s.cards)/gpn)) +
			"H" + views.Num(x(s.from)) + "Z")
	}
	return b.String()
}

// Booking states on the pools page, as poolBookingState says.
const (
	bookingAhead   = "ahead"
	bookingHolding = "holding"
	bookingOpen    = "open"
	bookingOver    = "over"
)

// poolBookingState is where a booking stands at now: ahead of its lead time, holding cards
// (the pool grows for it) before its window, in its window, or over.
func poolBookingState(b PoolBooking, now time.Time) string {
	switch {
	case !now.Before(b.Ends):
		return bookingOver
	case !now.Before(b.Starts):
		return bookingOpen
	case !now.Before(b.HoldFrom):
		return bookingHolding
	}
	return bookingAhead
}

// poolBookingStateText names a booking state.
func poolBookingStateText(l phrase.Locale, state string) string {
	switch state {
	case bookingAhead:
		return l.T("pools.booking.state.ahead")
	case bookingHolding:
		return l.T("pools.booking.state.holding")
	case bookingOpen:
		return l.T("pools.booking.state.open")
	}
	return l.T("pools.booking.state.over")
}

// nodesFor is how many nodes of gpn cards hold n cards.
func nodesFor(n, gpn int) int {
	gpn = max(gpn, 1)
	return (n + gpn - 1) / gpn
}

// upcomingBookings are the bookings not over at now, by start.
func upcomingBookings(bs []PoolBooking, now time.Time) []PoolBooking {
	var out []PoolBooking
	for _, b := range bs {
		if now.Before(b.Ends) {
			out = append(out, b)
		}
	}
	slices.SortStableFunc(out, func(a, b PoolBooking) int { return cmp.Compare(a.Starts.Unix(), b.Starts.Unix()) })
	return out
}

// bookingSpan writes a window in now's location: "12-04 09:00–18:00", with the end's day when
// it is another.
func bookingSpan(b PoolBooking, now time.Time) string {
	return views.BookingWindow(views.BoardBooking{Starts: b.Starts.In(now.Location()), Ends: b.Ends.In(now.Location())})
}
