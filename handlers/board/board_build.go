package board

import (
	"slices"
	"time"

	"kashi/api"
	"kashi/models"
	"kashi/views"
	boardview "kashi/views/board"
)

// A board of 32,768 cards shows a page of them, but every card's state is needed first: the
// pool summaries, the legend's counts, the owner and state filters, the idle-first order, the
// default view and the pages read all of them. So the selection keeps a mark per card (its
// row, state and compact state) and only the shown page's cards become views.BoardGPU, with
// their durations, holder and strip (draw).

// mark is one card of a selection.
type mark struct {
	row      int32 // index in selection.rows
	longIdle bool
	facts    boardview.CardFacts
	// compact is facts.Compact, set once the bookings are marked (classify).
	compact string
}

// selNode is a node of a selection: its header (GPUs unset until drawn) and its cards.
type selNode struct {
	node  views.BoardNode
	marks []mark
}

// selection is what the board selects before it cuts a page: its nodes with their cards'
// marks, and the summaries of their pools.
type selection struct {
	rows  []models.BoardGPU
	nodes []selNode
	pools []boardview.PoolSummary
}

// marks are the times after which a card is stale, long idle or long saturated.
func (h *Handler) marks() models.GPUMarks {
	return models.GPUMarks{StaleAfter: h.Cfg.StaleAfter, IdleAfter: h.Cfg.IdleAfter, SaturatedAfter: h.Cfg.SaturatedAfter}
}

// selectRows groups GPU rows (ordered by pool, node, index) into nodes of marks and pool
// summaries. The marks of all nodes share one array, allocated once.
func (h *Handler) selectRows(rows []models.BoardGPU, now time.Time) selection {
	gm := h.marks()
	nodes := 0
	for i := range rows {
		if i == 0 || rows[i].NodeID != rows[i-1].NodeID {
			nodes++
		}
	}
	s := selection{rows: rows, nodes: make([]selNode, 0, nodes)}
	all := make([]mark, len(rows))
	var (
		node *selNode
		pool *boardview.PoolSummary
		// first is the index in all of node's first mark; utilSum per node and per pool,
		// for the means.
		first, nodeUtil, poolUtil int
	)
	closeNode := func(end int) {
		if node != nil && end > first {
			node.marks = all[first:end:end]
			node.node.MeanUtil = nodeUtil / len(node.marks)
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
			s.pools = append(s.pools, boardview.PoolSummary{Name: r.Pool, Spec: r.Spec})
			pool, poolUtil = &s.pools[len(s.pools)-1], 0
		}
		if node == nil || node.node.ID != r.NodeID {
			closeNode(i)
			s.nodes = append(s.nodes, selNode{node: views.BoardNode{ID: r.NodeID, Hostname: r.Hostname, Pool: r.Pool,
				Spec: r.Spec, Region: r.Region, Zone: r.Zone, State: r.NodeState, LastSeen: r.LastSeenAt}})
			node, first, nodeUtil = &s.nodes[len(s.nodes)-1], i, 0
			pool.Nodes++
		}
		st := r.Status(now, gm)
		all[i] = mark{row: int32(i), longIdle: st.LongIdle, facts: boardview.CardFacts{State: api.GPUState(st.State),
			Held: r.TaskID != 0, LongSaturated: st.LongSaturated, UnmanagedMiB: r.UnmanagedMiB, UtilPct: r.UtilPct}}
		node.node.MemUsedMiB += r.MemoryUsedMiB
		node.node.MemTotalMiB += r.MemoryTotalMiB
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
	return s
}

// draw makes the views' nodes of ns with their cards, from s's rows at now; the cards carry
// their UUIDs when uuids is true (for admins).
func (s *selection) draw(ns []selNode, now time.Time, uuids bool) []views.BoardNode {
	n := 0
	for i := range ns {
		n += len(ns[i].marks)
	}
	cards := make([]views.BoardGPU, 0, n)
	out := make([]views.BoardNode, len(ns))
	for i := range ns {
		out[i] = ns[i].node
		first := len(cards)
		for _, m := range ns[i].marks {
			r := &s.rows[m.row]
			g := views.BoardGPU{ID: r.ID, Index: r.Index, MemoryUsedMiB: r.MemoryUsedMiB, MemoryTotalMiB: r.MemoryTotalMiB,
				UtilPct: r.UtilPct, TempC: r.TempC, PowerW: r.PowerW, Held: m.facts.Held, TaskID: r.TaskID, Task: r.Task,
				Project: r.Project, State: m.facts.State, LongIdle: m.longIdle, LongSaturated: m.facts.LongSaturated,
				BookedBy: m.facts.BookedBy, UnmanagedMiB: r.UnmanagedMiB, UnmanagedWho: r.UnmanagedWho, Owner: r.Owner}
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
			cards = append(cards, g)
		}
		out[i].GPUs = cards[first:len(cards):len(cards)]
	}
	return out
}

// classify sets each mark's compact state, once the bookings are marked.
func (s *selection) classify(activePct int) {
	for n := range s.nodes {
		for i := range s.nodes[n].marks {
			m := &s.nodes[n].marks[i]
			m.compact = m.facts.Compact(activePct)
		}
	}
}

// counts counts the selection's cards by compact state, over every page.
func (s *selection) counts() map[string]int {
	out := map[string]int{}
	for n := range s.nodes {
		for i := range s.nodes[n].marks {
			out[s.nodes[n].marks[i].compact]++
		}
	}
	return out
}

// cards counts the selection's cards.
func (s *selection) cards() int {
	n := 0
	for i := range s.nodes {
		n += len(s.nodes[i].marks)
	}
	return n
}

// owners lists the owners of the tasks holding rows' cards, sorted, for the owner filter.
func owners(rows []models.BoardGPU) []string {
	seen := map[string]bool{}
	var out []string
	for i := range rows {
		// A node's cards are mostly held by one task: skip the map for a repeated owner.
		if o := rows[i].Owner; o != "" && (i == 0 || o != rows[i-1].Owner) && !seen[o] {
			seen[o] = true
			out = append(out, o)
		}
	}
	slices.Sort(out)
	return out
}

// addStrips gives each card of nodes its recent-use strip.
func addStrips(nodes []views.BoardNode, strips map[int64]models.UtilStrip) {
	for n := range nodes {
		for g := range nodes[n].GPUs {
			nodes[n].GPUs[g].Strip = strips[nodes[n].GPUs[g].ID]
		}
	}
}

// narrow keeps the cards of f's owner and compact state, and the nodes left with a card.
func (s *selection) narrow(f boardview.BoardFilter) {
	if f.Owner == "" && f.State == "" {
		return
	}
	nodes := s.nodes[:0]
	for _, n := range s.nodes {
		ms := n.marks[:0]
		for _, m := range n.marks {
			if (f.Owner == "" || s.rows[m.row].Owner == f.Owner) && (f.State == "" || m.compact == f.State) {
				ms = append(ms, m)
			}
		}
		if len(ms) > 0 {
			n.marks = ms
			nodes = append(nodes, n)
		}
	}
	s.nodes = nodes
}

// sortIdleFirst orders the selection's nodes by their held idle cards, then their free
// ones, most first; ties keep the pool and node order.
func (s *selection) sortIdleFirst() {
	count := func(n selNode) (idle, free int) {
		for _, m := range n.marks {
			switch m.facts.State {
			case api.GPUIdle:
				idle++
			case api.GPUFree:
				free++
			}
		}
		return idle, free
	}
	slices.SortStableFunc(s.nodes, func(a, b selNode) int {
		ai, af := count(a)
		bi, bf := count(b)
		if ai != bi {
			return bi - ai
		}
		return bf - af
	})
}
