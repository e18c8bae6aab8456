package scheduler

import (
	"cmp"
	"slices"
)

// reserve makes the blocked task at queue position i the head of the place among specs
// (places) where its reservation comes first (ties: its data's region, then the first place
// by spec name and region).
func (d *decider) reserve(i int32, specs []int32) {
	g := d.st[i].gpus
	pref := d.prefOf(i)
	best, bestAt := int32(-1), int64(0)
	for _, s := range specs {
		at := d.reservation(s, g, nil, false)
		if best < 0 || at < bestAt || at == bestAt && pref != "" && d.f.specs[s].region == pref && d.f.specs[best].region != pref {
			best, bestAt = s, at
		}
	}
	r := resv{pos: i, task: d.st[i].id, spec: best}
	r.at = d.reservation(best, g, &r, false)
	ri := int32(len(d.res))
	for j, ni := range r.nodes {
		n := &d.f.nodes[ni]
		n.res, n.spare = ri, r.spare[j]
	}
	d.f.specs[best].res = ri
	d.res = append(d.res, r)
	st := &d.st[i]
	st.head, st.minStart, st.reason, st.where = true, r.at, rNoFreeGPUs, best
}

// reservation computes the earliest time g cards of spec s come free for one task if every
// holder ends at its expected end (with eta, the end the ETAs expect, see etaEnd), and with
// r != nil records the nodes, the cards the head takes on each and the spare cards left
// there.
//
// A long task (d.long) counts no short-only node. A task that fits on a node needs one node
// with g cards free: the node where that happens
// first (ties: lowest id), and the spare is what else is free there by then. A task larger
// than a node needs whole nodes: nodes in the order they become wholly free (ties: lowest
// id) until they hold g cards; no card of them is spare.
func (d *decider) reservation(s int32, g int32, r *resv, eta bool) int64 {
	f := d.f
	sp := &f.specs[s]
	d.evs = d.evs[:0]
	for _, e := range f.events {
		if f.nodes[e.node].spec == s {
			if eta {
				e.end50 = e.eta50
			}
			d.evs = append(d.evs, e)
		}
	}
	slices.SortFunc(d.evs, func(a, b event) int {
		if c := cmp.Compare(a.node, b.node); c != 0 {
			return c
		}
		return cmp.Compare(a.end50, b.end50)
	})
	if g <= sp.maxSize {
		best, bestAt := int32(-1), int64(never)
		var bestEvs []event
		j := 0
		for ni := sp.first; ni < sp.first+sp.n; ni++ {
			k := j
			for k < len(d.evs) && d.evs[k].node == ni {
				k++
			}
			n := &f.nodes[ni]
			if n.size >= g && !(n.shortOnly && d.long) {
				acc, at := n.free, int64(never)
				if acc >= g {
					at = 0
				} else {
					for _, e := range d.evs[j:k] {
						if acc += e.n; acc >= g {
							at = e.end50
							break
						}
					}
				}
				if best < 0 || at < bestAt {
					best, bestAt, bestEvs = ni, at, d.evs[j:k]
				}
			}
			j = k
		}
		if best < 0 { // every node that big is short-only
			return never
		}
		if r != nil {
			spare := f.nodes[best].free - g
			for _, e := range bestEvs {
				if e.end50 <= bestAt {
					spare += e.n
				}
			}
			r.nodes, r.need, r.spare = []int32{best}, []int32{g}, []int32{spare}
		}
		return bestAt
	}
	// Whole nodes: when each node becomes wholly free.
	whole := make([]int64, sp.n)
	for _, e := range d.evs {
		l := f.nodes[e.node].local
		whole[l] = max(whole[l], e.end50)
	}
	d.order = d.order[:0]
	for ni := sp.first; ni < sp.first+sp.n; ni++ {
		if !(f.nodes[ni].shortOnly && d.long) {
			d.order = append(d.order, ni)
		}
	}
	sortBy(d.order, func(ni int32) int64 { return whole[f.nodes[ni].local] })
	rest, at := g, int64(0)
	k := 0
	for ; k < len(d.order) && rest > 0; k++ {
		n := &f.nodes[d.order[k]]
		at = whole[n.local]
		if r != nil {
			r.nodes = append(r.nodes, d.order[k])
			r.need = append(r.need, min(rest, n.size))
			r.spare = append(r.spare, 0)
		}
		rest -= n.size
	}
	if rest > 0 {
		return never
	}
	return at
}
