package board

import (
	"slices"
	"time"

	"kashi/api"
	"kashi/models"
	"kashi/views"
	boardview "kashi/views/board"
)

// marks are the times after which a card is stale, long idle or long saturated.
func (h *Handler) marks() models.GPUMarks {
	return models.GPUMarks{StaleAfter: h.Cfg.StaleAfter, IdleAfter: h.Cfg.IdleAfter, SaturatedAfter: h.Cfg.SaturatedAfter}
}

// boardData groups GPU rows (ordered by pool, node, index) into nodes and pool summaries;
// the cards carry their UUIDs when uuids is true (for admins). The cards of all nodes share
// one array, allocated once: a board of 32,768 cards is built every interval per view.
func (h *Handler) boardData(rows []models.BoardGPU, now time.Time, uuids bool) boardview.BoardData {
	d := boardview.BoardData{Now: now, IdleAfter: h.Cfg.IdleAfter, SaturatedAfter: h.Cfg.SaturatedAfter}
	marks := h.marks()
	nodes := 0
	for i := range rows {
		if i == 0 || rows[i].NodeID != rows[i-1].NodeID {
			nodes++
		}
	}
	d.Nodes = make([]views.BoardNode, 0, nodes)
	cards := make([]views.BoardGPU, len(rows))
	var (
		node *views.BoardNode
		pool *boardview.PoolSummary
		// first is the index in cards of node's first card; utilSum per node and per pool,
		// for the means.
		first, nodeUtil, poolUtil int
	)
	closeNode := func(end int) {
		if node != nil && end > first {
			node.GPUs = cards[first:end:end]
			node.MeanUtil = nodeUtil / len(node.GPUs)
		}
	}
	closePool := func() {
		if pool != nil && pool.Total > 0 {
			pool.MeanUtil = poolUtil / pool.Total
		}
	}
	for i := range rows {
		r := &rows[i]
		if pool == nil || pool.Name != r.Pool {
			closePool()
			d.Pools = append(d.Pools, boardview.PoolSummary{Name: r.Pool, Spec: r.Spec})
			pool, poolUtil = &d.Pools[len(d.Pools)-1], 0
		}
		if node == nil || node.ID != r.NodeID {
			closeNode(i)
			d.Nodes = append(d.Nodes, views.BoardNode{ID: r.NodeID, Hostname: r.Hostname, Pool: r.Pool, Spec: r.Spec,
				Region: r.Region, Zone: r.Zone, State: r.NodeState, LastSeen: r.LastSeenAt})
			node, first, nodeUtil = &d.Nodes[len(d.Nodes)-1], i, 0
			pool.Nodes++
		}
		st := r.Status(now, marks)
		g := &cards[i]
		*g = views.BoardGPU{ID: r.ID, Index: r.Index, MemoryUsedMiB: r.MemoryUsedMiB, MemoryTotalMiB: r.MemoryTotalMiB,
			UtilPct: r.UtilPct, TempC: r.TempC, PowerW: r.PowerW, Held: r.TaskID != 0, TaskID: r.TaskID, Task: r.Task,
			Project: r.Project, State: api.GPUState(st.State), LongIdle: st.LongIdle, LongSaturated: st.LongSaturated,
			UnmanagedMiB: r.UnmanagedMiB, UnmanagedWho: r.UnmanagedWho, Owner: r.Owner}
		if uuids {
			g.UUID = r.UUID
		}
		if r.HeldSince != nil {
			g.HeldFor = now.Sub(*r.HeldSince)
		}
		if r.IdleSince != nil {
			g.IdleFor = now.Sub(*r.IdleSince)
		}
		if r.SaturatedSince != nil {
			g.SaturatedFor = now.Sub(*r.SaturatedSince)
		}
		node.MemUsedMiB += r.MemoryUsedMiB
		node.MemTotalMiB += r.MemoryTotalMiB
		nodeUtil += r.UtilPct
		pool.Total++
		pool.MemUsedMiB += r.MemoryUsedMiB
		pool.MemTotalMiB += r.MemoryTotalMiB
		poolUtil += r.UtilPct
		switch st.State {
		case models.GPUFree:
			pool.Free++
		case models.GPUIdle:
			pool.IdleHeld++
		case models.GPUBusy:
			pool.Busy++
		default:
			pool.Stale++
		}
	}
	closeNode(len(rows))
	closePool()
	return d
}

// owners lists the owners of the tasks holding rows' cards, sorted, for the owner filter.
func owners(rows []models.BoardGPU) []string {
	var out []string
	for _, r := range rows {
		if r.Owner != "" {
			out = append(out, r.Owner)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// addStrips gives each card of d its recent-use strip.
func addStrips(d *boardview.BoardData, strips map[int64]models.UtilStrip) {
	for n := range d.Nodes {
		for g := range d.Nodes[n].GPUs {
			d.Nodes[n].GPUs[g].Strip = strips[d.Nodes[n].GPUs[g].ID]
		}
	}
}

// narrowNodes keeps the cards of the filter's owner and compact state, and the nodes left
// with a card.
func narrowNodes(d *boardview.BoardData) {
	f := d.Filter
	if f.Owner == "" && f.State == "" {
		return
	}
	nodes := d.Nodes[:0]
	for _, n := range d.Nodes {
		gpus := n.GPUs[:0]
		for _, g := range n.GPUs {
			if (f.Owner == "" || g.Owner == f.Owner) && (f.State == "" || boardview.CompactState(&g, d.ActivePct) == f.State) {
				gpus = append(gpus, g)
			}
		}
		if len(gpus) > 0 {
			n.GPUs = gpus
			nodes = append(nodes, n)
		}
	}
	d.Nodes = nodes
}

// sortIdleFirst orders nodes by their held idle cards, then their free ones, most first;
// ties keep the pool and node order.
func sortIdleFirst(nodes []views.BoardNode) {
	count := func(n views.BoardNode) (idle, free int) {
		for _, g := range n.GPUs {
			switch g.State {
			case api.GPUIdle:
				idle++
			case api.GPUFree:
				free++
			}
		}
		return idle, free
	}
	slices.SortStableFunc(nodes, func(a, b views.BoardNode) int {
		ai, af := count(a)
		bi, bf := count(b)
		if ai != bi {
			return bi - ai
		}
		return bf - af
	})
}
