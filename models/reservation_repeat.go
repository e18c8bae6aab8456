package models

import (
	"slices"
	"strings"
	"time"
)

// A reservation repeats (周期预约) daily, or weekly on given weekdays, until a date: its
// windows are expanded when the request is approved, one Reservation row each (see
// bookReservations), so the loops, the board and the bill see nothing but single windows.
// Each window begins at the first one's wall-clock time in the request's zone, so a daily
// 09:00–18:00 stays 09:00 local across a daylight-saving change. ReserveWeeks, the older
// form, is weekly on the first window's weekday for that many more weeks.

// Repeats of a reservation (QuotaChange.ReserveRepeat).
const (
	RepeatDaily  = "daily"
	RepeatWeekly = "weekly"
)

// Weekdays are the names of ReserveWeekdays, Sunday first as time.Weekday counts.
var Weekdays = []string{"sun", "mon", "tue", "wed", "thu", "fri", "sat"}

// ReservationWindow is one window of a reservation request.
type ReservationWindow struct{ Begins, Ends time.Time }

// repeat is a change's repeat rule: every day, or on the weekdays set, up to until.
type repeat struct {
	on    [7]bool
	until time.Time
}

// repeat returns the change's rule, or false for a single window.
func (c QuotaChange) repeat() (repeat, bool) {
	var r repeat
	switch {
	case c.ReserveWeeks > 0:
		r.on[c.ReserveBegins.In(c.zone()).Weekday()] = true
		r.until = c.ReserveBegins.Add(time.Duration(c.ReserveWeeks) * 7 * 24 * time.Hour)
	case c.ReserveRepeat == RepeatDaily && c.ReserveUntil != nil:
		r.on, r.until = [7]bool{true, true, true, true, true, true, true}, *c.ReserveUntil
	case c.ReserveRepeat == RepeatWeekly && c.ReserveUntil != nil:
		for _, d := range c.ReserveWeekdays {
			if i := slices.Index(Weekdays, strings.ToLower(d)); i >= 0 {
				r.on[i] = true
			}
		}
		if len(c.ReserveWeekdays) == 0 {
			r.on[c.ReserveBegins.In(c.zone()).Weekday()] = true
		}
		r.until = *c.ReserveUntil
	default:
		return r, false
	}
	return r, true
}

// WeeklyDays are the weekdays a weekly repeat (either form) books, Sunday first; none for a
// single window or a daily repeat.
func (c QuotaChange) WeeklyDays() []time.Weekday {
	r, ok := c.repeat()
	if !ok || c.ReserveRepeat == RepeatDaily {
		return nil
	}
	var out []time.Weekday
	for d, on := range r.on {
		if on {
			out = append(out, time.Weekday(d))
		}
	}
	return out
}

// zone is the change's zone; UTC when it names none (or an unknown one, which checkRepeat
// refuses).
func (c QuotaChange) zone() *time.Location {
	if loc, err := time.LoadLocation(c.ReserveZone); err == nil {
		return loc
	}
	return time.UTC
}

// Windows are the windows a reservation change books, by start: the first, then, when it
// repeats, one on each day of its rule that begins by its end date.
func (c QuotaChange) Windows() []ReservationWindow {
	if c.ReserveBegins == nil || c.ReserveEnds == nil {
		return nil
	}
	span := c.ReserveEnds.Sub(*c.ReserveBegins)
	r, ok := c.repeat()
	if !ok {
		return []ReservationWindow{{UTC(*c.ReserveBegins), UTC(*c.ReserveEnds)}}
	}
	first := c.ReserveBegins.In(c.zone())
	var out []ReservationWindow
	for k := 0; k <= MaxReservationWeeks*7; k++ {
		at := time.Date(first.Year(), first.Month(), first.Day()+k, first.Hour(), first.Minute(), first.Second(), 0, first.Location())
		if at.After(r.until) {
			break
		}
		if r.on[at.Weekday()] {
			out = append(out, ReservationWindow{UTC(at), UTC(at.Add(span))})
		}
	}
	return out
}

// checkRepeat validates a change's repeat: one form of it, a known rule, days and zone, an
// end date within MaxReservationWeeks of the start, windows that cannot overlap, and at
// least one window.
func checkRepeat(c QuotaChange) error {
	span := c.ReserveEnds.Sub(*c.ReserveBegins)
	switch {
	case c.ReserveWeeks < 0 || c.ReserveWeeks > MaxReservationWeeks:
		return checkRange("reserve_weeks", int64(c.ReserveWeeks), 0, MaxReservationWeeks)
	case c.ReserveWeeks > 0 && c.ReserveRepeat != "":
		return fieldErr("reserve_weeks", "give either reserve_weeks or reserve_repeat")
	case c.ReserveRepeat != "" && c.ReserveRepeat != RepeatDaily && c.ReserveRepeat != RepeatWeekly:
		return fieldErr("reserve_repeat", "must be %s or %s", RepeatDaily, RepeatWeekly)
	case c.ReserveRepeat == "" && (c.ReserveUntil != nil || len(c.ReserveWeekdays) > 0):
		return fieldErr("reserve_repeat", "is required with reserve_until or reserve_weekdays")
	case len(c.ReserveZone) > 64:
		return fieldErr("reserve_zone", "must be an IANA zone name such as Asia/Shanghai")
	}
	if _, err := time.LoadLocation(c.ReserveZone); err != nil {
		return fieldErr("reserve_zone", "unknown zone %q", truncate(c.ReserveZone, 64))
	}
	if c.ReserveWeeks > 0 && span > 7*24*time.Hour {
		return fieldErr("reserve_ends", "a weekly window lasts at most 7 days")
	}
	if c.ReserveRepeat == "" {
		return nil
	}
	if c.ReserveRepeat == RepeatDaily && len(c.ReserveWeekdays) > 0 {
		return fieldErr("reserve_weekdays", "are for a weekly repeat")
	}
	for _, d := range c.ReserveWeekdays {
		if !slices.Contains(Weekdays, strings.ToLower(d)) {
			return fieldErr("reserve_weekdays", "must be among %s, got %q", strings.Join(Weekdays, ", "), truncate(d, 20))
		}
	}
	r, _ := c.repeat()
	days := 0
	for _, on := range r.on {
		if on {
			days++
		}
	}
	switch {
	case c.ReserveUntil == nil || c.ReserveUntil.Before(*c.ReserveBegins):
		return fieldErr("reserve_until", "is required, not before the begin")
	case c.ReserveUntil.Sub(*c.ReserveBegins) > MaxReservationWeeks*7*24*time.Hour:
		return fieldErr("reserve_until", "a reservation repeats for at most %d weeks", MaxReservationWeeks)
	case days > 1 && span > 24*time.Hour:
		return fieldErr("reserve_ends", "a window repeated on more than one day a week lasts at most a day")
	case span > 7*24*time.Hour:
		return fieldErr("reserve_ends", "a weekly window lasts at most 7 days")
	case len(c.Windows()) == 0:
		return fieldErr("reserve_weekdays", "no window falls between the begin and the end date")
	}
	return nil
}
