package board

import (
	"context"
	"time"

	"kashi/models"
	"kashi/views"
	boardview "kashi/views/board"
)

// markBookings adds the reservations holding cards now (from their spec's lead time before
// the window, as the scheduler holds them) and marks free cards of each one's spec as held
// for it: all its cards before the window, those its project does not use in it. The
// scheduler holds cards of a spec, not particular ones; the board marks the first free ones
// in its order. Marks follow the filter: a card not shown is not counted.
func (h *Handler) markBookings(ctx context.Context, d *boardview.BoardData, now time.Time) error {
	rs, err := h.store.Reservations(ctx, now, now.Add(models.BookingHorizon))
	if err != nil || len(rs) == 0 {
		return err
	}
	pools, err := h.store.ConfiguredPools(ctx)
	if err != nil {
		return err
	}
	for _, r := range rs {
		b := views.BoardBooking{Project: r.Project, Spec: r.Spec, Region: r.Region, GPUs: r.GPUs, Starts: r.StartsAt.In(now.Location()),
			Ends: r.EndsAt.In(now.Location()), Occurrence: r.Occurrence, Occurrences: r.Occurrences}
		b.HoldFrom = b.Starts.Add(-models.BookingLead(pools, r.Spec, r.Region))
		if now.Before(b.HoldFrom) {
			continue
		}
		d.Bookings = append(d.Bookings, b)
	}
	for i := range d.Bookings {
		b := &d.Bookings[i]
		if b.Open(now) {
			b.InUse = min(b.GPUs, heldOfSpec(d.Nodes, b.Project, *b))
		}
		want := b.GPUs - b.InUse
		for n := range d.Nodes {
			if !b.Covers(d.Nodes[n]) {
				continue
			}
			for g := range d.Nodes[n].GPUs {
				c := &d.Nodes[n].GPUs[g]
				if b.HeldFree < want && !c.Held && c.BookedBy == 0 && c.State == models.GPUFree {
					c.BookedBy = i + 1
					b.HeldFree++
				}
			}
		}
	}
	return nil
}

// heldOfSpec counts the cards of the booking's spec (and region) that project's tasks hold
// among nodes.
func heldOfSpec(nodes []views.BoardNode, project string, b views.BoardBooking) int {
	n := 0
	for _, node := range nodes {
		if !b.Covers(node) {
			continue
		}
		for _, g := range node.GPUs {
			if g.Held && g.Project == project {
				n++
			}
		}
	}
	return n
}
