package billing

import (
	"cmp"
	"slices"

	"kashi/models"
)

// PoolIdle is one pool's provisioned card time in the month that no task held. Of IdleS,
// PackageS is charged to reserved packages (their unused hours, pool by pool in name order)
// and OrganisationS to the organisation.
type PoolIdle struct {
	Pool          string `json:"pool"`
	Spec          string `json:"spec"`
	ProvisionedS  int64  `json:"provisioned_s"`
	HeldS         int64  `json:"held_s"`
	IdleS         int64  `json:"idle_s"`
	PackageS      int64  `json:"package_s"`
	OrganisationS int64  `json:"organisation_s"`
}

// poolIdle counts, per pool, each GPU's provisioned seconds in win — its node's registration
// until last seen, and any second an allocation held it — less the seconds some allocation
// held it, then charges the idle seconds to the packages that left hours unused, up to
// those hours, and the rest to the organisation.
func poolIdle(nodes []models.LedgerNode, heldByGPU map[int64][]Span, win Span, bills []Bill) []PoolIdle {
	at := map[string]int{}
	var out []PoolIdle
	for _, n := range nodes {
		var p PoolIdle
		for _, g := range n.GPUIDs {
			prov, held, idle := gpuTime(n, heldByGPU[g], win)
			p.ProvisionedS += prov
			p.HeldS += held
			p.IdleS += idle
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
		p.PackageS = min(p.IdleS, unused[p.Spec])
		unused[p.Spec] -= p.PackageS
		p.OrganisationS = p.IdleS - p.PackageS
	}
	return out
}

// gpuTime is one GPU of node n in win: its provisioned seconds (the node's registration
// until last seen, and any second an allocation held it), the seconds held (the union of
// held), and the provisioned seconds that no allocation held.
func gpuTime(n models.LedgerNode, held []Span, win Span) (provisioned, heldS, idle int64) {
	prov := Span{n.RegisteredAt.Unix(), n.LastSeenAt.Unix()}.Clip(win)
	heldS = unionSeconds(held, win)
	heldIn := unionSeconds(held, prov)
	return prov.Seconds() + heldS - heldIn, heldS, prov.Seconds() - heldIn
}

// unionSeconds is the length of the union of spans inside w.
func unionSeconds(spans []Span, w Span) int64 {
	if len(spans) == 0 {
		return 0
	}
	ss := make([]Span, 0, len(spans))
	for _, s := range spans {
		if c := s.Clip(w); c.Seconds() > 0 {
			ss = append(ss, c)
		}
	}
	slices.SortFunc(ss, func(a, b Span) int { return cmp.Compare(a.Start, b.Start) })
	var total, end int64
	end = w.Start
	for _, s := range ss {
		if s.End <= end {
			continue
		}
		total += s.End - max(s.Start, end)
		end = s.End
	}
	return total
}
