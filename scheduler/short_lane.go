package scheduler

import (
	"cmp"
	"slices"
)

// MarkShortOnly keeps, in each pool, reserve[pool] nodes for the short lane: the schedulable
// nodes of the highest ids, which long tasks are never placed on (Node.ShortOnly). Other
// nodes are left as they are. It is pure.
func MarkShortOnly(nodes []Node, reserve map[string]int) {
	byPool := make(map[string][]int)
	for i := range nodes {
		if reserve[nodes[i].Pool] > 0 && nodes[i].Schedulable {
			byPool[nodes[i].Pool] = append(byPool[nodes[i].Pool], i)
		}
	}
	for pool, idx := range byPool {
		slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(nodes[b].ID, nodes[a].ID) })
		for _, i := range idx[:min(reserve[pool], len(idx))] {
			nodes[i].ShortOnly = true
		}
	}
}
