package scheduler

import (
	"math/rand/v2"
	"testing"
	"time"

	"kashi/models"
)

// book adds a booking of gpus cards of spec for project, held from an hour before start.
func (b snapB) book(project, spec string, gpus int, start, end time.Time) snapB {
	b.s.Bookings = append(b.s.Bookings, Booking{Project: project, Spec: spec, GPUs: gpus,
		HoldFrom: start.Add(-time.Hour), Starts: start, Ends: end})
	return b
}

func TestDecideBooking(t *testing.T) {
	// Project "r" books 6 of the 8 A cards from 09:00 to 18:00 (t0 is 00:00). Before the
	// hold begins (08:00) nothing is held.
	start, end := t0.Add(9*time.Hour), t0.Add(18*time.Hour)
	base := func() snapB { return snapshot(node(1, "A", 8)).book("r", "A", 6, start, end) }
	long := pending(1).project("p").gpus(4).spec("A").ready()
	tests := map[string]struct {
		snap      snapB
		now       time.Time
		wantPlace map[int64][]int64
		wantWhy   map[int64]Reason
	}{
		"before the hold nothing is held": {
			snap: base().queue(long), now: t0.Add(7 * time.Hour),
			wantPlace: map[int64][]int64{1: gpus(1, 0, 3)},
		},
		"held before the window: another project's long task takes only the rest": {
			snap: base().queue(long, pending(2).project("p").gpus(2).spec("A").ready()), now: t0.Add(8*time.Hour + 30*time.Minute),
			wantPlace: map[int64][]int64{2: gpus(1, 0, 1)},
			wantWhy:   map[int64]Reason{1: ReasonNoFreeGPUs},
		},
		"a short task ending before the window borrows the held cards": {
			snap: base().queue(pending(1).project("p").gpus(8).spec("A").short(20 * time.Minute).ready()), now: t0.Add(8*time.Hour + 30*time.Minute),
			wantPlace: map[int64][]int64{1: gpus(1, 0, 7)},
		},
		"a short task ending after the window starts does not": {
			snap: base().queue(pending(1).project("p").gpus(8).spec("A").short(time.Hour).ready()), now: t0.Add(8*time.Hour + 30*time.Minute),
			wantWhy: map[int64]Reason{1: ReasonNoFreeGPUs},
		},
		"the project's own task waits for its window": {
			snap: base().queue(pending(1).project("r").gpus(6).spec("A").ready()), now: t0.Add(8*time.Hour + 30*time.Minute),
			wantWhy: map[int64]Reason{1: ReasonReservationWindow},
		},
		"the project's own task starts on other free cards": {
			snap: base().queue(pending(1).project("r").gpus(2).spec("A").ready()), now: t0.Add(8*time.Hour + 30*time.Minute),
			wantPlace: map[int64][]int64{1: gpus(1, 0, 1)},
		},
		"in the window the project's tasks take the held cards": {
			snap: base().queue(pending(1).project("r").gpus(6).spec("A").ready()), now: start,
			wantPlace: map[int64][]int64{1: gpus(1, 0, 5)},
		},
		"in the window another project's short task does not take them": {
			snap: base().queue(pending(1).project("p").gpus(4).spec("A").short(time.Minute).ready()), now: start.Add(time.Hour),
			wantWhy: map[int64]Reason{1: ReasonNoFreeGPUs},
		},
		"in the window the project's running cards count against its booking": {
			snap: base().run(running(90, gpus(1, 0, 3)...).project("r").started(start).ends(time.Hour, 2*time.Hour)).
				queue(pending(1).project("p").gpus(2).spec("A").ready(), pending(2).project("p").gpus(1).spec("A").ready()),
			now: start.Add(time.Minute),
			// 4 free, 2 still owed to r: one long task of 2 fits, not a second.
			wantPlace: map[int64][]int64{1: gpus(1, 4, 5)},
			wantWhy:   map[int64]Reason{2: ReasonNoFreeGPUs},
		},
		"after the window nothing is held": {
			snap: base().queue(long), now: end,
			wantPlace: map[int64][]int64{1: gpus(1, 0, 3)},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			checkPlan(t, Decide(tc.snap.s, tc.now, Policy{Backfill: true}), tc.wantPlace, tc.wantWhy)
		})
	}
}

// A task waiting for its own project's window says so, with the window's start as its ETA;
// another project's task held back by a booking says the cards are booked.
func TestDecideBookingExplains(t *testing.T) {
	start := t0.Add(9 * time.Hour)
	snap := snapshot(node(1, "A", 8)).book("r", "A", 8, start, start.Add(9*time.Hour)).
		queue(pending(1).project("r").gpus(8).spec("A").est(time.Hour).ready(), pending(2).project("p").gpus(1).spec("A").ready())
	plan := Decide(snap.s, t0.Add(8*time.Hour+30*time.Minute), Policy{Backfill: true})
	if w := waitingOf(plan, 1); w.Reason != ReasonReservationWindow || !w.ETAP50.Equal(start) {
		t.Errorf("own task waits as %#v, want %s from %v", w, ReasonReservationWindow, start)
	}
	if w := waitingOf(plan, 2); w.Reason != ReasonNoFreeGPUs || w.Detail != DetailBooked {
		t.Errorf("other task waits as %+v, want %s (%s)", w, ReasonNoFreeGPUs, DetailBooked)
	}
}

// genBookings gives "llm" a booking near now on some runs, drawn from its own source so the
// other draws of a seed stay as they were.
func genBookings(now time.Time, c genConfig) []Booking {
	r := rand.New(rand.NewPCG(uint64(now.UnixNano()), 21))
	if r.IntN(3) == 0 {
		return nil
	}
	start := now.Add(time.Duration(r.IntN(12*60)-6*60) * time.Minute)
	return []Booking{{Project: "llm", Spec: c.specs[r.IntN(len(c.specs))], GPUs: 1 + r.IntN(16),
		HoldFrom: start.Add(-time.Duration(r.IntN(120)) * time.Minute), Starts: start,
		Ends: start.Add(time.Duration(1+r.IntN(9*60)) * time.Minute)}}
}

// bookedOwed is the cards of spec that the bookings holding at now keep from task p, given
// what each project holds: all of a booking whose window has not opened (unless p is short
// and ends by its max runtime before it opens, whoever's project), the unmet part of another project's open one.
func bookedOwed(snap Snapshot, now time.Time, p Pending, spec string, heldBySpec map[string]map[string]int) int {
	owed := 0
	for _, b := range snap.Bookings {
		switch {
		case b.Spec != spec || !b.Holds(now):
		case now.Before(b.Starts):
			if !(p.Queue == models.QueueShort && p.MaxRuntime > 0 && !now.Add(p.MaxRuntime).After(b.Starts)) {
				owed += b.GPUs
			}
		case b.Project != p.Project:
			owed += max(b.GPUs-heldBySpec[b.Project][spec], 0)
		}
	}
	return owed
}

// bookedFrom reports whether a booking holding at now keeps cards of spec from p (all but its
// own project's open window; p's own waiting window too).
func bookedFrom(snap Snapshot, now time.Time, p Pending, spec string) bool {
	for _, b := range snap.Bookings {
		if b.Spec == spec && b.Holds(now) && (b.Project != p.Project || now.Before(b.Starts)) {
			return true
		}
	}
	return false
}

// waitsForOwnBooking reports whether p's project has a booking holding at now whose window
// opens later, on a spec p can use.
func waitsForOwnBooking(snap Snapshot, now time.Time, p Pending) bool {
	for _, b := range snap.Bookings {
		if b.Project == p.Project && b.Holds(now) && now.Before(b.Starts) && (p.Spec == "" || p.Spec == b.Spec) {
			return true
		}
	}
	return false
}

// A booking in a region holds cards of that region only: another project's long task takes
// the other region's cards, not the booked ones; the project's own task with nothing free
// elsewhere waits for its window; its cards in another region do not fill the booking.
func TestDecideBookingInRegion(t *testing.T) {
	start, end := t0.Add(9*time.Hour), t0.Add(18*time.Hour)
	base := func() snapB {
		b := snapshot(in("east", node(1, "A", 8)), in("west", node(2, "A", 8)))
		b.s.Bookings = append(b.s.Bookings, Booking{Project: "r", Spec: "A", Region: "west", GPUs: 8,
			HoldFrom: start.Add(-time.Hour), Starts: start, Ends: end})
		return b
	}
	tests := map[string]struct {
		snap      snapB
		now       time.Time
		wantPlace map[int64][]int64
		wantWhy   map[int64]Reason
	}{
		"another project's long tasks take the other region's cards only": {
			snap:      base().queue(pending(1).project("p").gpus(8).spec("A").ready(), pending(2).project("p").gpus(4).spec("A").ready()),
			now:       t0.Add(8*time.Hour + 30*time.Minute),
			wantPlace: map[int64][]int64{1: gpus(1, 0, 7)},
			wantWhy:   map[int64]Reason{2: ReasonNoFreeGPUs},
		},
		"the project's own task waits for its window when the other region is full": {
			snap: base().run(running(90, gpus(1, 0, 7)...).project("p").started(t0).ends(20*time.Hour, 30*time.Hour)).
				queue(pending(1).project("r").gpus(8).spec("A").ready()),
			now:     t0.Add(8*time.Hour + 30*time.Minute),
			wantWhy: map[int64]Reason{1: ReasonReservationWindow},
		},
		"in the window the project's cards elsewhere do not fill it": {
			snap: base().run(running(90, gpus(1, 0, 3)...).project("r").started(start).ends(time.Hour, 2*time.Hour)).
				queue(pending(1).project("p").gpus(8).spec("A").ready()),
			now: start.Add(time.Minute),
			// Counted spec-wide, r's 4 cards in the east would leave 4 owed and let the 8-card
			// task take the west node; held in the west, all 8 there are owed.
			wantWhy: map[int64]Reason{1: ReasonNoFreeGPUs},
		},
		"in the window the project takes the region's cards": {
			snap: base().queue(pending(1).project("r").gpus(8).spec("A").regions("west").ready()), now: start,
			wantPlace: map[int64][]int64{1: gpus(2, 0, 7)},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			checkPlan(t, Decide(tc.snap.s, tc.now, Policy{Backfill: true}), tc.wantPlace, tc.wantWhy)
		})
	}
}
