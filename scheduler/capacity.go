package scheduler

import (
	"cmp"
	"slices"
	"time"
)

// SpecCapacity is one spec's cards in one region at snapshot time: the free capacity (余量)
// a submitter looks at before asking for cards.
type SpecCapacity struct {
	Spec string
	// Region is the region of the nodes' pools; "" for none.
	Region string
	// Total counts every card of the spec, on every node, schedulable or not.
	Total int
	// Held counts the cards running tasks hold (as QuotaUse counts them, every project
	// together).
	Held int
	// Free counts the cards of schedulable nodes that no task holds and no booking keeps
	// from other projects: what a task of a project without a booking could take here now
	// (a dry run starts a task of that many cards when one node holds them). Total − Held −
	// Free − Booked cards sit unheld on draining, lost or not-ready nodes, or are used
	// outside Kashi (GPU.Outside).
	Free int
	// Booked counts the cards of schedulable nodes that no task holds but bookings keep
	// for their projects (see BookingHold.Owed): free for the booking's own project only
	// (and, before its window, for short tasks ending before it). BookedFor names those
	// projects, in name order.
	Booked    int
	BookedFor []string
	// LargestFree is the most of Free on one schedulable node: the largest task that fits
	// on one node now. A task asking more waits even when Free is enough, unless it is larger
	// than every node and takes whole free nodes.
	LargestFree int
	// ShortReserve counts the cards of schedulable short-only nodes (the pools' short-lane
	// reserve, counted in Free or Booked when unheld); ShortReserveHeld those of them tasks
	// hold.
	ShortReserve     int
	ShortReserveHeld int
}

// FreeCapacity sums the snapshot's cards per region and spec at now, in region then spec
// name order, net of the bookings holding cards at now: a booking of a spec keeps its
// cards from the free cards of every region of the spec, one in a region from that
// region's, as Decide keeps them. It is pure: the same snapshot gives the same answer on
// every replica.
func FreeCapacity(snap Snapshot, now time.Time) []SpecCapacity {
	held := make(map[int64]bool)
	for _, r := range snap.Running {
		for _, g := range r.GPUIDs {
			held[g] = true
		}
	}
	bySpec := make(map[place]*SpecCapacity)
	largest := make(map[place]int)
	for _, n := range snap.Nodes {
		pl := place{n.Spec, n.Region}
		c, ok := bySpec[pl]
		if !ok {
			c = &SpecCapacity{Spec: n.Spec, Region: n.Region}
			bySpec[pl] = c
		}
		free, outside := 0, 0
		for _, g := range n.GPUs {
			c.Total++
			switch {
			case held[g.ID]:
			case g.Outside:
				outside++
			default:
				free++
			}
		}
		if n.Schedulable {
			c.Free += free
			largest[pl] = max(largest[pl], free)
			if n.ShortOnly {
				c.ShortReserve += len(n.GPUs)
				c.ShortReserveHeld += len(n.GPUs) - free - outside
			}
		}
	}
	for k, n := range heldCards(snap.Running, snapPlaces(snap)) {
		bySpec[k.place].Held += n
	}
	// What the bookings keep: of a spec's free cards in every region, of a place's.
	owedSpec, owedPlace, freeSpec := map[string]int{}, map[place]int{}, map[string]int{}
	holds := BookingHolds(snap, now)
	for _, h := range holds {
		if h.Region == "" {
			owedSpec[h.Spec] += h.Owed
		} else {
			owedPlace[place{h.Spec, h.Region}] += h.Owed
		}
	}
	for _, c := range bySpec {
		freeSpec[c.Spec] += c.Free
	}
	out := make([]SpecCapacity, 0, len(bySpec))
	for pl, c := range bySpec {
		free := max(0, min(c.Free-owedPlace[pl], freeSpec[c.Spec]-owedSpec[c.Spec]))
		c.Booked, c.Free = c.Free-free, free
		c.LargestFree = min(largest[pl], free)
		for _, h := range holds {
			if c.Booked > 0 && h.Owed > 0 && h.Spec == c.Spec && (h.Region == "" || h.Region == c.Region) {
				c.BookedFor = append(c.BookedFor, h.Project)
			}
		}
		slices.Sort(c.BookedFor)
		c.BookedFor = slices.Compact(c.BookedFor)
		out = append(out, *c)
	}
	slices.SortFunc(out, func(a, b SpecCapacity) int {
		return cmp.Or(cmp.Compare(a.Region, b.Region), cmp.Compare(a.Spec, b.Spec))
	})
	return out
}
