package scheduler

import (
	"cmp"
	"slices"
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
	// Free counts the cards of schedulable nodes that no task holds: what tasks could take
	// now. Total − Held − Free cards sit unheld on draining, lost or not-ready nodes.
	Free int
	// LargestFree is the most free cards on one schedulable node: the largest task that fits
	// on one node now. A task asking more waits even when Free is enough, unless it is larger
	// than every node and takes whole free nodes.
	LargestFree int
	// ShortReserve counts the cards of schedulable short-only nodes (the pools' short-lane
	// reserve, counted in Free when unheld); ShortReserveHeld those of them tasks hold.
	ShortReserve     int
	ShortReserveHeld int
}

// FreeCapacity sums the snapshot's cards per region and spec, in region then spec name
// order. It is pure: the same snapshot gives the same answer on every replica.
func FreeCapacity(snap Snapshot) []SpecCapacity {
	held := make(map[int64]bool)
	for _, r := range snap.Running {
		for _, g := range r.GPUIDs {
			held[g] = true
		}
	}
	bySpec := make(map[place]*SpecCapacity)
	var out []SpecCapacity
	for _, n := range snap.Nodes {
		c, ok := bySpec[place{n.Spec, n.Region}]
		if !ok {
			c = &SpecCapacity{Spec: n.Spec, Region: n.Region}
			bySpec[place{n.Spec, n.Region}] = c
		}
		free := 0
		for _, g := range n.GPUs {
			c.Total++
			if !held[g.ID] {
				free++
			}
		}
		if n.Schedulable {
			c.Free += free
			c.LargestFree = max(c.LargestFree, free)
			if n.ShortOnly {
				c.ShortReserve += len(n.GPUs)
				c.ShortReserveHeld += len(n.GPUs) - free
			}
		}
	}
	for k, n := range heldCards(snap.Running, snapPlaces(snap)) {
		bySpec[k.place].Held += n
	}
	out = make([]SpecCapacity, 0, len(bySpec))
	for _, c := range bySpec {
		out = append(out, *c)
	}
	slices.SortFunc(out, func(a, b SpecCapacity) int {
		return cmp.Or(cmp.Compare(a.Region, b.Region), cmp.Compare(a.Spec, b.Spec))
	})
	return out
}
