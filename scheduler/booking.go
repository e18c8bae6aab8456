package scheduler

import "time"

// Booking is an approved advance reservation (预约): GPUs cards of Spec held for Project from
// Starts to Ends. From HoldFrom (the caller's lead time before Starts, when the pool grows
// for it) the cards are held: before Starts other projects may borrow them only with short
// tasks that end, by their max runtime, before Starts, and the project's own tasks wait for
// the window (ReasonReservationWindow) unless other cards are free; from Starts to Ends no
// other project's task takes them, and the project's tasks take them first. Decide holds a booking the way it holds a guaranteed
// share (see keepHeld): cards of its spec in total (in Region when set), not particular nodes.
type Booking struct {
	// ID is the reservation's id, for the pages; Decide does not read it.
	ID       int64
	Project  string
	Spec     string
	Region   string // "": every region of Spec
	GPUs     int
	HoldFrom time.Time
	Starts   time.Time
	Ends     time.Time
}

// Holds reports whether the booking holds cards at now.
func (b Booking) Holds(now time.Time) bool {
	return b.GPUs > 0 && !now.Before(b.HoldFrom) && now.Before(b.Ends)
}

// initBookings adds the bookings that hold cards now to the held shares of their specs.
func (d *decider) initBookings() {
	for _, b := range d.snap.Bookings {
		places, ok := d.f.byName[b.Spec]
		if !ok || !b.Holds(d.now) {
			continue
		}
		s := d.f.specs[places[0]].nameIdx
		if d.guar == nil {
			d.guar = make([][]gshare, len(d.f.names))
		}
		d.guar[s] = append(d.guar[s], gshare{project: b.Project, guaranteed: int32(min(b.GPUs, MaxBookedGPUs)),
			booked: true, starts: int64(b.Starts.Sub(d.now)), region: b.Region})
		d.booked = true
	}
}

// MaxBookedGPUs bounds one booking's cards as Decide counts them.
const MaxBookedGPUs = 1 << 20

// keepHeld keeps of specs (places: a spec in a region) those where a task of project p taking g cards (short when short,
// ending at the latest at end90) leaves enough free cards for the shares held for others on
// that spec, and returns them (reusing specs' array). A guaranteed share holds back cards
// from other projects' long tasks while unmet; short tasks may borrow it, since they give
// the cards back within the short lane's limit. A booking holds its cards from everyone but
// short tasks of other projects ending before its window starts; once the window is open
// its own project's tasks take them, and its project's cards of the spec count against it.
// A booking in a region holds cards of that place only, counted against its free cards;
// the others hold cards of the spec in every region, counted against all its free cards.
// own is true when a spec was left out only for the project's own booking whose window has
// not opened; ownStart is then the earliest such window's start (an offset from now). booked
// is true when other projects' bookings alone left out every spec left out for others.
func (d *decider) keepHeld(p, g int32, short bool, end90 int64, specs []int32) (kept []int32, own bool, ownStart int64, booked bool) {
	n, out, bookedOut := 0, 0, 0
	ownStart = never
	for _, s := range specs {
		// held[0] is what the spec's shares hold, held[1] what this place's region's do;
		// booked is the part of owed that bookings hold.
		var held [2]struct{ owed, booked, mine int32 }
		first := int64(never)
		name := d.f.specs[s].nameIdx
		for _, gs := range d.guar[name] {
			k := 0
			if gs.region != "" {
				if gs.region != d.f.specs[s].region {
					continue
				}
				k = 1
			}
			me := gs.project == d.q.projName[p]
			switch {
			case !gs.booked && (short || me):
			case gs.booked && me && gs.starts <= 0:
			case gs.booked && short && end90 <= gs.starts:
			case gs.booked && gs.starts > 0 && me:
				held[k].mine += gs.guaranteed
				first = min(first, gs.starts)
			case gs.booked && gs.starts > 0:
				held[k].owed += gs.guaranteed
				held[k].booked += gs.guaranteed
			case gs.held < gs.guaranteed:
				held[k].owed += gs.guaranteed - gs.held
				if gs.booked {
					held[k].booked += gs.guaranteed - gs.held
				}
			}
		}
		// A share of the spec holds cards in every region: what is free of the spec counts.
		left := [2]int64{-int64(g), int64(d.f.specs[s].freeGPUs) - int64(g)}
		for _, o := range d.f.byName[d.f.names[name]] {
			left[0] += int64(d.f.specs[o].freeGPUs)
		}
		keep, mineOnly, byBookings := true, true, false
		for k, h := range held {
			// Kept, also when the cards would not fit whatever is held: then the task waits
			// for cards, not for a hold.
			if !(h.owed+h.mine == 0 || left[k] >= int64(h.owed)+int64(h.mine) || left[k] < 0) {
				keep, mineOnly = false, mineOnly && left[k] >= int64(h.owed)
				byBookings = byBookings || left[k] < int64(h.booked)
			}
		}
		switch {
		case keep:
			specs[n] = s
			n++
		case mineOnly:
			own, ownStart = true, min(ownStart, first)
		default:
			out++
			if byBookings {
				bookedOut++
			}
		}
	}
	// Booked only when the bookings alone keep the task from every place they left out: one
	// that other projects' guaranteed shares keep out waits for those.
	return specs[:n], own, ownStart, out > 0 && bookedOut == out
}

// BookingHold is a booking holding cards at a moment, with the cards it keeps from every
// other project: what Decide holds back for it (see keepHeld) and what the capacity panel
// and the board show as booked.
type BookingHold struct {
	Booking
	// Open is true once the window has begun.
	Open bool
	// InUse is how many cards of its spec (in its region, when it names one) its project
	// holds while the window is open; 0 before.
	InUse int
	// Owed is how many cards it keeps from other projects' tasks: all of them before the
	// window (short tasks ending before it may still borrow them), those its project's
	// cards do not fill in it.
	Owed int
}

// BookingHolds are the snapshot's bookings that hold cards at now, in the snapshot's order,
// their projects' cards counted as QuotaUse counts them.
func BookingHolds(snap Snapshot, now time.Time) []BookingHold {
	var out []BookingHold
	var held map[heldKey]int
	for _, b := range snap.Bookings {
		if !b.Holds(now) {
			continue
		}
		h := BookingHold{Booking: b, Open: !now.Before(b.Starts), Owed: min(b.GPUs, MaxBookedGPUs)}
		if h.Open {
			if held == nil {
				held = heldCards(snap.Running, snapPlaces(snap))
			}
			for k, n := range held {
				if k.project == b.Project && k.spec == b.Spec && (b.Region == "" || k.region == b.Region) {
					h.InUse += n
				}
			}
			h.Owed = max(0, h.Owed-h.InUse)
		}
		out = append(out, h)
	}
	return out
}
