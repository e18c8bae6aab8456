package board

import (
	"context"
	"time"

	"kashi/api"
	"kashi/models"
	"kashi/views"
	boardview "kashi/views/board"
)

// markBookings adds the bookings the scheduler holds cards for now (from their spec's lead
// time before the window; scheduler.BookingHolds, kept with the queue) and marks free cards
// of each one's spec as held for it: as many as it keeps from other projects (all its
// cards before the window, those its project's cards do not fill in it), the count the
// queue's capacity panel shows as booked. The scheduler holds cards of a spec, not
// particular ones; the board marks the first free cards of ready nodes in its order. Marks
// follow the filter: a card not shown is not marked. Each pool's summary in d counts its
// marked cards.
func (h *Handler) markBookings(ctx context.Context, d *boardview.BoardData, s *selection, now time.Time) error {
	rs, err := h.store.Reservations(ctx, now, now.Add(models.BookingHorizon))
	if err != nil || len(rs) == 0 {
		return err
	}
	view, err := h.Sched.Queue(ctx, now)
	if err != nil {
		return err
	}
	windows := make(map[int64]models.ReservationRow, len(rs))
	for _, r := range rs {
		windows[r.ID] = r
	}
	owed := make([]int, len(view.Bookings))
	for i, hb := range view.Bookings {
		b := views.BoardBooking{Project: hb.Project, Spec: hb.Spec, Region: hb.Region, GPUs: hb.GPUs,
			HoldFrom: hb.HoldFrom.In(now.Location()), Starts: hb.Starts.In(now.Location()), Ends: hb.Ends.In(now.Location()),
			InUse: min(hb.GPUs, hb.InUse), Occurrence: 1, Occurrences: 1}
		if r, ok := windows[hb.ID]; ok {
			b.Occurrence, b.Occurrences = r.Occurrence, r.Occurrences
		}
		d.Bookings, owed[i] = append(d.Bookings, b), hb.Owed
	}
	booked := make(map[string]int)
	for i := range d.Bookings {
		b := &d.Bookings[i]
		for n := range s.nodes {
			node := &s.nodes[n]
			if !b.Covers(node.node) || node.node.State != models.NodeReady {
				continue
			}
			for g := range node.marks {
				c := &node.marks[g].facts
				if b.HeldFree < owed[i] && !c.Held && c.BookedBy == 0 && c.State == api.GPUFree {
					c.BookedBy = i + 1
					b.HeldFree++
					booked[node.node.Pool]++
				}
			}
		}
	}
	for i := range d.Pools {
		d.Pools[i].Booked = booked[d.Pools[i].Name]
	}
	return nil
}
