package billing

import (
	"cmp"
	"slices"

	"kashi/models"
)

// PoolIdle is one pool's provisioned card time in the month that no task held. Of IdleS,
// PackageS is charged to reserved packages (their unused hours, pool by pool in name order)
// and OrganisationS to the organisation. UnmanagedS is the unheld time that processes of no
// task used (unmanaged use): a class of its own, charged to no one, so that
// ProvisionedS = HeldS + IdleS + UnmanagedS. UnmanagedNodes are its nodes, by name.
type PoolIdle struct {
	Pool           string          `json:"pool"`
	Spec           string          `json:"spec"`
	ProvisionedS   int64           `json:"provisioned_s"`
	HeldS          int64           `json:"held_s"`
	IdleS          int64           `json:"idle_s"`
	PackageS       int64           `json:"package_s"`
	OrganisationS  int64           `json:"organisation_s"`
	UnmanagedS     int64           `json:"unmanaged_s"`
	UnmanagedNodes []NodeUnmanaged `json:"unmanaged_nodes,omitempty"`
}

// NodeUnmanaged is one node's unmanaged use in the month: card time no task held while
// processes of no task used the cards.
type NodeUnmanaged struct {
	Node       string `json:"node"`
	UnmanagedS int64  `json:"unmanaged_s"`
}

// poolIdle counts, per pool, each GPU's provisioned seconds in win — its node's registration
// until last seen, and any second an allocation held it — less the seconds some allocation
// held it and those of unmanaged use (gpuTime; times has those of the GPUs held, counted as
// their allocations came), then charges the idle seconds to the packages that left hours
// unused, up to those hours, and the rest to the organisation.
func poolIdle(nodes []models.LedgerNode, times map[int64]gpuTimes, unmanagedByGPU map[int64][]Span, win Span, bills []Bill) []PoolIdle {
	at := map[string]int{}
	var out []PoolIdle
	for _, n := range nodes {
		var p PoolIdle
		for _, g := range n.GPUIDs {
			t, ok := times[g]
			if !ok {
				t = gpuTime(n, nil, unmanagedByGPU[g], win)
			}
			p.ProvisionedS += t.provisioned
			p.HeldS += t.held
			p.IdleS += t.idle
			p.UnmanagedS += t.unmanaged
		}
		if p.ProvisionedS == 0 {
			continue
		}
		i, ok := at[n.Pool]
		if !ok {
			i = len(out)
			at[n.Pool] = i
			out = append(out, PoolIdle{Pool: n.Pool, Spec: n.Spec})
		}
		out[i].ProvisionedS += p.ProvisionedS
		out[i].HeldS += p.HeldS
		out[i].IdleS += p.IdleS
		out[i].UnmanagedS += p.UnmanagedS
		if p.UnmanagedS > 0 {
			out[i].UnmanagedNodes = append(out[i].UnmanagedNodes, NodeUnmanaged{Node: n.Hostname, UnmanagedS: p.UnmanagedS})
		}
	}
	slices.SortFunc(out, func(a, b PoolIdle) int { return cmp.Compare(a.Pool, b.Pool) })
	unused := map[string]int64{}
	for _, b := range bills {
		if b.Package != nil {
			unused[b.Package.Spec] += b.Package.UnusedS
		}
	}
	for i := range out {
		p := &out[i]
		slices.SortFunc(p.UnmanagedNodes, func(a, b NodeUnmanaged) int { return cmp.Compare(a.Node, b.Node) })
		p.PackageS = min(p.IdleS, unused[p.Spec])
		unused[p.Spec] -= p.PackageS
		p.OrganisationS = p.IdleS - p.PackageS
	}
	return out
}

// gpuTimes are one GPU's seconds in a window (see gpuTime).
type gpuTimes struct {
	provisioned, held, idle, unmanaged int64
}

// gpuTime is one GPU of node n in win: its provisioned seconds (the node's registration
// until last seen, and any second an allocation held it), the seconds held (the union of
// held), the provisioned seconds that no allocation held and no process of no task used
// (idle), and those that such a process used (unmanaged; an open use ends where the node
// was last seen).
func gpuTime(n models.LedgerNode, held, unmanaged []Span, win Span) gpuTimes {
	prov := Span{n.RegisteredAt.Unix(), n.LastSeenAt.Unix()}.Clip(win)
	heldS := unionSeconds(held, win)
	heldIn := unionSeconds(held, prov)
	var unmanagedS int64
	if len(unmanaged) > 0 {
		used := merged(unmanaged, prov)
		unmanagedS = spansSeconds(used) - overlapSeconds(used, merged(held, prov))
	}
	return gpuTimes{provisioned: prov.Seconds() + heldS - heldIn, held: heldS, idle: prov.Seconds() - heldIn - unmanagedS,
		unmanaged: unmanagedS}
}

// merged is the union of spans inside w, as sorted disjoint spans.
func merged(spans []Span, w Span) []Span {
	var ss []Span
	for _, s := range spans {
		if c := s.Clip(w); c.Seconds() > 0 {
			ss = append(ss, c)
		}
	}
	slices.SortFunc(ss, func(a, b Span) int { return cmp.Compare(a.Start, b.Start) })
	var out []Span
	for _, s := range ss {
		if k := len(out) - 1; k >= 0 && s.Start <= out[k].End {
			out[k].End = max(out[k].End, s.End)
			continue
		}
		out = append(out, s)
	}
	return out
}

// spansSeconds is the length of disjoint spans.
func spansSeconds(ss []Span) int64 {
	var total int64
	for _, s := range ss {
		total += s.Seconds()
	}
	return total
}

// overlapSeconds is the length of the intersection of two lists of sorted disjoint spans.
func overlapSeconds(a, b []Span) int64 {
	var total int64
	for i, j := 0, 0; i < len(a) && j < len(b); {
		total += a[i].Clip(b[j]).Seconds()
		if a[i].End < b[j].End {
			i++
		} else {
			j++
		}
	}
	return total
}

// unionSeconds is the length of the union of spans inside w. A GPU's spans come by start,
// as its allocations do; others are sorted first, in a copy.
func unionSeconds(spans []Span, w Span) int64 {
	byStart := func(a, b Span) int { return cmp.Compare(a.Start, b.Start) }
	if !slices.IsSortedFunc(spans, byStart) {
		spans = slices.SortedFunc(slices.Values(spans), byStart)
	}
	var total int64
	end := w.Start
	for _, s := range spans {
		c := s.Clip(w)
		if c.Seconds() <= 0 || c.End <= end {
			continue
		}
		total += c.End - max(c.Start, end)
		end = c.End
	}
	return total
}
