package scaler

import (
	"testing"
	"time"
)

// A pool grows for the cards its bookings hold, beside the nodes other projects' tasks keep
// busy, and does not shrink under them; without bookings it shrinks as usual.
func TestDecideScaleBookings(t *testing.T) {
	booked := func(b poolB, project string, gpus int) poolB {
		b.p.Bookings = append(b.p.Bookings, PoolBooking{Project: project, GPUs: gpus})
		return b
	}
	other := func(id int64) Node {
		n := busy(id, task(id*10, 2*time.Hour, 4*time.Hour))
		n.Tasks[0].Project = "p"
		return n
	}
	own := func(id int64) Node {
		n := busy(id, task(id*10, 2*time.Hour, 4*time.Hour))
		n.Tasks[0].Project = "r"
		return n
	}
	tests := map[string]struct {
		snap    Snapshot
		want    []string
		details []string
	}{
		"grows for the booked cards beside busy nodes": {
			snap:    booked(scalePool().nodes(other(1)), "r", 16).snap(),
			want:    []string{"scale-up +2 booked"},
			details: []string{"size 1 < 3 nodes the reservations need"},
		},
		"the booking project's own tasks add nothing": {
			snap: booked(scalePool().nodes(own(1), own(2)), "r", 16).snap(),
			want: []string{"skip booked", "skip no-demand"},
		},
		"does not shrink under the booking": {
			snap: booked(scalePool().nodes(idleNode(1, time.Hour), idleNode(2, time.Hour)).memory(flat(10, 15*time.Minute)...), "r", 16).snap(),
			want: []string{"skip booked", "skip no-demand"},
		},
		"shrinks once the booking is gone": {
			snap: scalePool().nodes(idleNode(1, time.Hour), idleNode(2, time.Hour)).memory(flat(10, 15*time.Minute)...).snap(),
			want: []string{"drain 1 node-unneeded"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) { checkSummary(t, tc.snap, tc.want, tc.details...) })
	}
}
