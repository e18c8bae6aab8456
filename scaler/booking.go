package scaler

import (
	"context"
	"time"

	"kashi/models"
)

// bookedFloor is the size the pool's bookings need: nodes for all booked cards, plus every
// ready node busy with a task of a project without a booking here (its cards are not free
// for the bookings). A booking's own project's tasks run on its cards, so they add nothing.
func (ps *poolPass) bookedFloor() int {
	if len(ps.p.Bookings) == 0 {
		return 0
	}
	booked, mine := 0, make(map[string]bool)
	for _, b := range ps.p.Bookings {
		booked += b.GPUs
		mine[b.Project] = true
	}
	busy := 0
	for _, n := range ps.ready {
		for _, t := range n.Tasks {
			if !mine[t.Project] {
				busy++
				break
			}
		}
	}
	return min(ceilDiv(booked, ps.gpn)+busy, ps.pol.MaxNodes)
}

// addBookings counts the reservations holding cards within each pool's lead time against
// the pool of their spec (DemandPool), among the pools in their region when they name one.
func (s *Scaler) addBookings(ctx context.Context, in *scaleInput, cps []models.ConfiguredPool, now time.Time) error {
	if len(in.snap.Pools) == 0 {
		return nil
	}
	rs, err := s.store.Reservations(ctx, now, now.Add(models.BookingHorizon))
	if err != nil {
		return err
	}
	at := make(map[string]int)
	for i, p := range in.snap.Pools {
		at[p.Name] = i
	}
	for _, r := range rs {
		var refs []PoolRef
		for _, cp := range cps {
			if _, ok := in.pools[cp.Name]; ok && (r.Region == "" || cp.Config.Region == r.Region) {
				refs = append(refs, PoolRef{Name: cp.Name, Spec: cp.Spec})
			}
		}
		k := DemandPool(refs, r.Spec)
		if k < 0 || now.Before(r.StartsAt.Add(-models.BookingLead(cps, r.Spec, r.Region))) {
			continue
		}
		i := at[refs[k].Name]
		in.snap.Pools[i].Bookings = append(in.snap.Pools[i].Bookings, PoolBooking{Project: r.Project, GPUs: r.GPUs})
	}
	return nil
}
