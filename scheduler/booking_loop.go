package scheduler

import (
	"context"
	"time"

	"kashi/models"
)

// bookings reads the reservations of the coming days as Decide's bookings, each held from
// its spec's lead time (models.BookingLead) before its window.
func (l *Loop) bookings(ctx context.Context, pools []models.ConfiguredPool, now time.Time) ([]Booking, error) {
	rs, err := l.store.Reservations(ctx, now, now.Add(models.BookingHorizon))
	if err != nil {
		return nil, err
	}
	out := make([]Booking, 0, len(rs))
	for _, r := range rs {
		out = append(out, Booking{ID: r.ID, Project: r.Project, Spec: r.Spec, Region: r.Region, GPUs: r.GPUs,
			HoldFrom: r.StartsAt.Add(-models.BookingLead(pools, r.Spec, r.Region)), Starts: r.StartsAt, Ends: r.EndsAt})
	}
	return out, nil
}
