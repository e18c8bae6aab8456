package models

import (
	"cmp"
	"maps"
	"slices"
)

// A reservation may hold its cards in one region (QuotaChange.ReserveRegion): the scheduler
// counts only that region's cards of its spec against it, and the scaling loop grows that
// region's pool of the spec. A request on a spec's quota books that spec there; one on the
// project's all-spec quota names only the region, and is given, when filed, the cheapest spec
// the region can provide the cards of (ReservationSpec), which prices it at approval and is
// the spec it books, holds and bills.

// ReservationSpec chooses the spec a reservation of gpus cards in region books when it names
// none: of the specs whose enabled pools in the region together hold gpus cards at their
// largest (max nodes × cards per node), the one with the lowest rate (fen per card-hour; a
// spec without one is left out), ties by name. ok is false when no spec can.
func ReservationSpec(pools []ConfiguredPool, rate func(spec string) (int64, bool), region string, gpus int) (spec string, ok bool) {
	capacity := map[string]int{}
	for _, p := range pools {
		if p.Config.Enabled && p.Config.Region == region {
			capacity[cmp.Or(p.Config.Spec, p.Spec)] += p.Config.MaxNodes * cmp.Or(p.Config.GPUsPerNode, p.GPUsPerNode)
		}
	}
	best := int64(-1)
	for _, s := range slices.Sorted(maps.Keys(capacity)) {
		r, priced := rate(s)
		if priced && capacity[s] >= gpus && (best < 0 || r < best) {
			spec, best = s, r
		}
	}
	return spec, best >= 0
}
