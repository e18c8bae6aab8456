package scheduler

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// bookedWorlds are fleets with bookings holding cards at t0, for the capacity panel's tests.
func bookedWorlds() map[string]Snapshot {
	ahead, open := t0.Add(30*time.Minute), t0.Add(-time.Hour) // a window about to open, one open
	end := t0.Add(8 * time.Hour)
	return map[string]Snapshot{
		"before its window a booking keeps all its cards": snapshot(node(1, "A100-80G", 8)).
			run(running(10, gpus(1, 0, 1)...)).book("b", "A100-80G", 4, ahead, end).s,
		"in its window its project's cards fill it": snapshot(node(1, "A100-80G", 8)).
			run(running(10, gpus(1, 0, 2)...).project("b")).book("b", "A100-80G", 4, open, end).s,
		"a booking larger than the free cards keeps them all": snapshot(node(1, "A100-80G", 8)).
			run(running(10, gpus(1, 0, 1)...)).book("b", "A100-80G", 20, open, end).s,
		"a booking in a region keeps cards there only": snapshot(in("r1", node(1, "A100-80G", 8)), in("r2", node(2, "A100-80G", 8))).
			bookIn("b", "A100-80G", "r1", 6, ahead, end).s,
		"a booking of a spec keeps cards of every region": snapshot(in("r1", node(1, "A100-80G", 8)), in("r2", node(2, "A100-80G", 8))).
			book("b", "A100-80G", 10, ahead, end).s,
		"two projects' bookings of two specs": snapshot(node(1, "A100-80G", 8), node(2, "H800-80G", 8)).
			book("b", "A100-80G", 3, ahead, end).book("c", "A100-80G", 2, open, end).book("c", "H800-80G", 8, open, end).s,
		"a booking not holding yet keeps nothing": snapshot(node(1, "A100-80G", 8)).
			book("b", "A100-80G", 4, t0.Add(3*time.Hour), end).s,
		"a booking of a spec whose cards are all held keeps none": snapshot(node(1, "A100-80G", 8)).
			run(running(10, gpus(1, 0, 7)...)).book("b", "A100-80G", 4, ahead, end).s,
	}
}

// bookIn adds a booking held in region.
func (b snapB) bookIn(project, spec, region string, gpus int, start, end time.Time) snapB {
	b = b.book(project, spec, gpus, start, end)
	b.s.Bookings[len(b.s.Bookings)-1].Region = region
	return b
}

func TestFreeCapacityNetOfBookings(t *testing.T) {
	want := map[string][]SpecCapacity{
		"before its window a booking keeps all its cards": {{Spec: "A100-80G", Total: 8, Held: 2, Free: 2, Booked: 4,
			BookedFor: []string{"b"}, LargestFree: 2}},
		"in its window its project's cards fill it": {{Spec: "A100-80G", Total: 8, Held: 3, Free: 4, Booked: 1,
			BookedFor: []string{"b"}, LargestFree: 4}},
		"a booking larger than the free cards keeps them all": {{Spec: "A100-80G", Total: 8, Held: 2, Booked: 6,
			BookedFor: []string{"b"}}},
		"a booking in a region keeps cards there only": {
			{Spec: "A100-80G", Region: "r1", Total: 8, Free: 2, Booked: 6, BookedFor: []string{"b"}, LargestFree: 2},
			{Spec: "A100-80G", Region: "r2", Total: 8, Free: 8, LargestFree: 8},
		},
		// 16 free, 10 kept: a task of either region may take 6.
		"a booking of a spec keeps cards of every region": {
			{Spec: "A100-80G", Region: "r1", Total: 8, Free: 6, Booked: 2, BookedFor: []string{"b"}, LargestFree: 6},
			{Spec: "A100-80G", Region: "r2", Total: 8, Free: 6, Booked: 2, BookedFor: []string{"b"}, LargestFree: 6},
		},
		"two projects' bookings of two specs": {
			{Spec: "A100-80G", Total: 8, Free: 3, Booked: 5, BookedFor: []string{"b", "c"}, LargestFree: 3},
			{Spec: "H800-80G", Total: 8, Booked: 8, BookedFor: []string{"c"}},
		},
		"a booking not holding yet keeps nothing":                 {{Spec: "A100-80G", Total: 8, Free: 8, LargestFree: 8}},
		"a booking of a spec whose cards are all held keeps none": {{Spec: "A100-80G", Total: 8, Held: 8}},
	}
	for name, snap := range bookedWorlds() {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(want[name], FreeCapacity(snap, t0)); diff != "" {
				t.Errorf("FreeCapacity(...) mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFreeCapacityIsWhatTryPlaces: for every place of the panel, a dry run (Try) of a task
// of a project without a booking starts with the panel's largest free cards and waits, on
// cards booked by another project, with one more; where the panel counts no booked card, it
// waits for cards, never "booked" (a task that would not fit whatever is held was told it
// waited for a booking while every card was held).
func TestFreeCapacityIsWhatTryPlaces(t *testing.T) {
	for name, snap := range bookedWorlds() {
		t.Run(name, func(t *testing.T) {
			for _, c := range NewQueueView(snap, Decide(snap, t0, Policy{}), t0, Policy{}).Capacity {
				ask := pending(1).project("p").spec(c.Spec).ready()
				if c.Region != "" {
					ask = ask.regions(c.Region)
				}
				if c.LargestFree > 0 {
					if tr := Try(snap, ask.gpus(c.LargestFree).p, t0, Policy{}); !tr.Starting {
						t.Errorf("%s in %q: the panel says %d free, a dry run of %d waits: %s", c.Spec, c.Region, c.LargestFree, c.LargestFree, tr)
					}
				}
				tr := Try(snap, ask.gpus(c.LargestFree+1).p, t0, Policy{})
				if c.Booked == 0 {
					if tr.Detail == DetailBooked {
						t.Errorf("%s in %q: the panel counts no booked card, a dry run of %d: %s", c.Spec, c.Region, c.LargestFree+1, tr)
					}
					continue
				}
				if tr.Starting || tr.Reason != ReasonNoFreeGPUs || tr.Detail != DetailBooked {
					t.Errorf("%s in %q: the panel says %d free and %d booked, a dry run of %d: %s, want booked by another project",
						c.Spec, c.Region, c.LargestFree, c.Booked, c.LargestFree+1, tr)
				}
			}
		})
	}
}

// A task kept out by another project's guaranteed share beside a booking waits for that
// share, not for the booking: the panel, which counts the booking only, shows the cards the
// booking leaves (8 of 16), and a dry run of 8 must not answer "booked".
func TestDryRunNamesTheHoldThatKeepsItOut(t *testing.T) {
	snap := snapshot(node(1, "A100-80G", 8), node(2, "A100-80G", 8)).
		book("b", "A100-80G", 8, t0.Add(-time.Hour), t0.Add(8*time.Hour)).
		quota("g", QuotaState{Guaranteed: map[string]int{"A100-80G": 4}}).s
	c := FreeCapacity(snap, t0)
	if len(c) != 1 || c[0].LargestFree != 8 || c[0].Booked != 8 {
		t.Fatalf("panel %+v, want 8 free on one node and 8 booked", c)
	}
	ask := pending(1).project("p").spec("A100-80G").ready()
	if tr := Try(snap, ask.gpus(8).p, t0, Policy{}); tr.Starting || tr.Detail != DetailGuaranteedShare {
		t.Errorf("a dry run of 8: %s, want it waits for g's guaranteed share", tr)
	}
	if tr := Try(snap, ask.gpus(12).p, t0, Policy{}); tr.Starting || tr.Detail != DetailBooked {
		t.Errorf("a dry run of 12: %s, want booked by another project", tr)
	}
}

// Over random fleets with guaranteed shares and bookings, a dry run of a long task of a
// project with neither answers "booked by another project" only when it asks more than
// the panel's largest free cards of its place: the panel and Decide count the same
// bookings (the class of TestDryRunNamesTheHoldThatKeepsItOut).
func TestBookedDryRunsAskMoreThanThePanel(t *testing.T) {
	for seed := range uint64(60) {
		r := rand.New(rand.NewPCG(seed, 7))
		c := genConfig{nodes: 2 + r.IntN(6), perNode: 8, specs: genSpecs[:2], pending: r.IntN(20), busy: r.Float64(), quotas: true}
		snap := genSnapshot(r, c, t0)
		for range 1 + r.IntN(3) {
			start := t0.Add(time.Duration(r.IntN(180)-90) * time.Minute)
			b := Booking{Project: []string{"vision", "speech", "llm"}[r.IntN(3)], Spec: c.specs[r.IntN(2)], GPUs: 1 + r.IntN(16),
				HoldFrom: start.Add(-time.Hour), Starts: start, Ends: start.Add(6 * time.Hour)}
			snap.Bookings = append(snap.Bookings, b)
		}
		for _, cp := range NewQueueView(snap, Decide(snap, t0, Policy{}), t0, Policy{}).Capacity {
			for g := 1; g <= cp.LargestFree; g++ {
				ask := pending(1_000_000).project("nobody").spec(cp.Spec).gpus(g).ready().p
				ask.MaxRuntime = 48 * time.Hour
				if tr := Try(snap, ask, t0, Policy{}); tr.Detail == DetailBooked {
					t.Errorf("seed %d, %s in %q: the panel says %d free on one node, a dry run of %d: %s", seed, cp.Spec, cp.Region, cp.LargestFree, g, tr)
				}
			}
		}
	}
}
