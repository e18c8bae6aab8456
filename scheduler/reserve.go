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
		at := d.reservation(s, g, nil, endsPlan)
		if best < 0 || at < bestAt || at == bestAt && pref != "" && d.f.specs[s].region == pref && d.f.specs[best].region != pref {
			best, bestAt = s, at
		}
	}
	r := resv{pos: i, task: d.st[i].id, spec: best}
	r.at = d.reservation(best, g, &r, endsPlan)
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

// Which end of each running task a reservation counts.
const (
	endsPlan   = iota // its expected end: start + estimate, else start + max runtime
	endsETA           // the end the ETAs expect (see etaEnd)
	endsLatest        // its latest end: start + max runtime
)

// reservation computes the earliest time g cards of spec s come free for one task if every
// holder ends at the end ends says, and with r != nil records the nodes, the cards the head
// takes on each and the spare cards left there.
//
// A long task (d.long) counts no short-only node, and no task counts the cards used outside
// Kashi (fnode.outside), which have no end. A task that fits on a node needs one node with g
// cards free: the node where that happens first (ties: lowest id), and the spare is what
// else is free there by then. A task larger than a node needs whole nodes: nodes in the
// order they become wholly free (ties: lowest id; a node with cards used outside Kashi never
// does) until they hold g cards; no card of them is spare.
func (d *decider) reservation(s int32, g int32, r *resv, ends int) int64 {
	f := d.f
	sp := &f.specs[s]
	d.evs = append(d.evs[:0], d.placeEvents(s)...)
	for i := range d.evs {
		switch e := &d.evs[i]; ends {
		case endsETA:
			e.end50 = e.eta50
		case endsLatest:
			e.end50 = e.end90
		}
	}
	// By node, then end: each node's few events sorted apart.
	for j := 0; j < len(d.evs); {
		k := j + 1
		for k < len(d.evs) && d.evs[k].node == d.evs[j].node {
			k++
		}
		slices.SortFunc(d.evs[j:k], func(a, b event) int { return cmp.Compare(a.end50, b.end50) })
		j = k
	}
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
			if n.size-n.outside >= g && !(n.shortOnly && d.long) {
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
		if best < 0 { // every node that big is short-only, or has cards used outside Kashi
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
		if n := &f.nodes[ni]; !(n.shortOnly && d.long) && n.outside == 0 {
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

// placeEvents are the events of place s by node, kept until an event is added.
func (d *decider) placeEvents(s int32) []event {
	if d.placeEvs == nil || d.placeEvsAt != len(d.f.events) {
		d.placeEvs, d.placeEvsAt = make(map[int32][]event), len(d.f.events)
	}
	if es, ok := d.placeEvs[s]; ok {
		return es
	}
	var es []event
	for _, e := range d.f.events {
		if d.f.nodes[e.node].spec == s {
			es = append(es, e)
		}
	}
	slices.SortStableFunc(es, func(a, b event) int { return cmp.Compare(a.node, b.node) })
	d.placeEvs[s] = es
	return es
}
