package billing

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"time"

	"kashi/models"
)

// Booking is one reservation window of a project in the month: GPUs cards of Spec booked
// from StartsAt to EndsAt (a cancelled window's end is its cancellation). BookedS is the
// window's card-seconds in the month until the bill's AsOf; UsedS the part the project's
// cards of the spec filled (never more than GPUs at a time; where windows overlap the
// earlier-starting one is filled first); UnusedS the rest, billed at ChargePct percent of
// the spec's card-hour rate (the pools' rule, see BookingRules).
type Booking struct {
	ReservationID int64     `json:"reservation_id"`
	Spec          string    `json:"spec"`
	GPUs          int       `json:"gpus"`
	StartsAt      time.Time `json:"starts_at"`
	EndsAt        time.Time `json:"ends_at"`
	BookedS       int64     `json:"booked_s"`
	UsedS         int64     `json:"used_s"`
	UnusedS       int64     `json:"unused_s"`
	ChargePct     int       `json:"charge_pct"`
}

// BookingRules is the rule for unused booked card-hours per spec: the lowest
// unused_booking_pct of the spec's pools (a project never pays more than the most lenient
// pool of the spec asks), a pool without one counting as the default. A spec without a
// configured pool has the default (bookingRule).
func BookingRules(pools []models.ConfiguredPool) map[string]int {
	out := map[string]int{}
	for _, p := range pools {
		spec := cmp.Or(p.Config.Spec, p.Spec)
		if pct, ok := out[spec]; !ok || p.Config.UnusedBooking() < pct {
			out[spec] = p.Config.UnusedBooking()
		}
	}
	return out
}

// bookingRule is the rule of spec among rules (BookingRules): the default where no
// configured pool of the spec sets one.
func bookingRule(rules map[string]int, spec string) int {
	if pct, ok := rules[spec]; ok {
		return pct
	}
	return models.DefaultUnusedBookingPct
}

// bookingKey is a project's cards of one spec.
type bookingKey struct {
	project int64
	spec    string
}

// bookingSet measures each project's reservation windows against its held cards of the
// window's spec, within upTo (the month's start until asOf): add is given every allocation,
// then measure. A nil set (no reservations) measures nothing.
type bookingSet struct {
	upTo  Span
	byKey map[bookingKey][]models.Reservation
	held  map[bookingKey][]Span
	pct   map[string]int
}

func newBookingSet(in Input, upTo Span) *bookingSet {
	if len(in.Reservations) == 0 {
		return nil
	}
	bs := &bookingSet{upTo: upTo, byKey: map[bookingKey][]models.Reservation{}, held: map[bookingKey][]Span{}, pct: in.UnusedBookingPct}
	for _, r := range in.Reservations {
		k := bookingKey{r.ProjectID, r.Spec}
		bs.byKey[k] = append(bs.byKey[k], r)
	}
	return bs
}

// add counts allocation a, held over held, for its project's windows of its spec.
func (bs *bookingSet) add(a *models.LedgerAllocation, held Span) {
	if bs == nil {
		return
	}
	k := bookingKey{a.ProjectID, a.Spec}
	if _, ok := bs.byKey[k]; !ok {
		return
	}
	if s := held.Clip(bs.upTo); s.Seconds() > 0 {
		bs.held[k] = append(bs.held[k], s)
	}
}

// measure is each project's bookings, by spec.
func (bs *bookingSet) measure() map[int64][]Booking {
	if bs == nil {
		return nil
	}
	out := map[int64][]Booking{}
	for _, k := range slices.SortedFunc(maps.Keys(bs.byKey), func(a, b bookingKey) int {
		return cmp.Or(cmp.Compare(a.project, b.project), cmp.Compare(a.spec, b.spec))
	}) {
		out[k.project] = append(out[k.project], measureBookings(bs.byKey[k], bs.held[k], bs.upTo, bookingRule(bs.pct, k.spec))...)
	}
	return out
}

// measureBookings fills the windows rs (one project and spec) with the held spans, by a sweep
// over the moments either changes.
func measureBookings(rs []models.Reservation, held []Span, upTo Span, pct int) []Booking {
	slices.SortFunc(rs, func(a, b models.Reservation) int {
		return cmp.Or(a.StartsAt.Compare(b.StartsAt), cmp.Compare(a.ID, b.ID))
	})
	out := make([]Booking, len(rs))
	wins := make([]Span, len(rs))
	type event struct {
		at    int64
		delta int
	}
	events := make([]event, 0, 2*len(held)+2*len(rs))
	for i, r := range rs {
		wins[i] = Span{r.StartsAt.Unix(), r.EndsAt.Unix()}.Clip(upTo)
		out[i] = Booking{ReservationID: r.ID, Spec: r.Spec, GPUs: r.GPUs, StartsAt: r.StartsAt.UTC(), EndsAt: r.EndsAt.UTC(),
			BookedS: int64(r.GPUs) * wins[i].Seconds(), ChargePct: pct}
		events = append(events, event{wins[i].Start, 0}, event{wins[i].End, 0})
	}
	for _, s := range held {
		events = append(events, event{s.Start, 1}, event{s.End, -1})
	}
	slices.SortFunc(events, func(a, b event) int { return cmp.Compare(a.at, b.at) })
	cards := 0
	for i, e := range events {
		cards += e.delta
		if i+1 == len(events) || events[i+1].at == e.at {
			continue
		}
		seg := Span{e.at, events[i+1].at}
		left := cards
		for j := range out {
			if left == 0 {
				break
			}
			if wins[j].Start <= seg.Start && seg.End <= wins[j].End {
				take := min(left, out[j].GPUs)
				out[j].UsedS += int64(take) * seg.Seconds()
				left -= take
			}
		}
	}
	kept := out[:0]
	for _, k := range out {
		if k.BookedS > 0 { // a window not begun by asOf has nothing to bill yet
			k.UnusedS = k.BookedS - k.UsedS
			kept = append(kept, k)
		}
	}
	return kept
}

// bookingItems adds, per spec, the unused booked card-hours priced by the rule: the spec's
// card-hour rate, of which ChargePct percent is charged.
func (bl *pricer) bookingItems() {
	b := bl.b
	unused := map[string]int64{}
	pct := map[string]int{}
	for _, k := range b.Bookings {
		unused[k.Spec] += k.UnusedS
		pct[k.Spec] = k.ChargePct
	}
	for _, spec := range slices.Sorted(maps.Keys(unused)) {
		if unused[spec] == 0 {
			continue
		}
		it := Item{Kind: ItemBookingUnused, Spec: spec, NominalS: unused[spec], Pct: pct[spec],
			Note: fmt.Sprintf("%d %% of the rate", pct[spec])}
		if it.Pct > 0 {
			it.RateFen = bl.rate(spec, false)
			it.AmountFen = AmountPct(it.NominalS, it.RateFen, it.Pct)
		}
		b.Items = append(b.Items, it)
	}
}
