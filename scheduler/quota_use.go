package scheduler

// Use is the cards one project's running tasks hold at a snapshot: what its quotas are
// admitted against. Decide counts it, and every page, the API and /metrics show it, from
// one computation (heldCards), so a page never shows a project above a limit that Decide
// kept it within.
type Use struct {
	// Total counts every card, all specs together (what a quota of all specs limits).
	Total int
	// BySpec counts the cards by the spec of the node holding them (what a quota of one
	// spec limits), every region together.
	BySpec map[string]int
}

// Of is how many of the project's cards count against a quota of spec ("" for all specs).
func (u Use) Of(spec string) int {
	if spec == "" {
		return u.Total
	}
	return u.BySpec[spec]
}

// QuotaUse is the cards each project holds at the snapshot, by project name: the running
// tasks' cards on the snapshot's nodes, by the spec of the node. A project holding none is
// absent (its zero Use).
func QuotaUse(snap Snapshot) map[string]Use {
	return useOf(heldCards(snap.Running, snapPlaces(snap)))
}

// heldKey is a project's cards of one place (a spec in a region).
type heldKey struct {
	project string
	place
}

// heldCards counts the cards the running tasks hold, by project and the place of the node
// holding them. A card held twice counts once (for the first task), a card of no node of
// the snapshot not at all: quota use, the capacity panel's held cards and the bookings'
// cards in use all count from here.
func heldCards(running []Running, placeOf func(gpu int64) (place, bool)) map[heldKey]int {
	out := make(map[heldKey]int)
	seen := make(map[int64]bool)
	for i := range running {
		r := &running[i]
		for _, g := range r.GPUIDs {
			pl, ok := placeOf(g)
			if !ok || seen[g] {
				continue
			}
			seen[g] = true
			out[heldKey{r.Project, pl}]++
		}
	}
	return out
}

// snapPlaces maps each card of the snapshot's nodes to its node's place.
func snapPlaces(snap Snapshot) func(int64) (place, bool) {
	cards := 0
	for _, n := range snap.Nodes {
		cards += len(n.GPUs)
	}
	at := make(map[int64]place, cards)
	for _, n := range snap.Nodes {
		for _, g := range n.GPUs {
			at[g.ID] = place{n.Spec, n.Region}
		}
	}
	return func(g int64) (place, bool) {
		pl, ok := at[g]
		return pl, ok
	}
}

// useOf sums held cards into each project's Use.
func useOf(held map[heldKey]int) map[string]Use {
	out := make(map[string]Use)
	for k, n := range held {
		u := out[k.project]
		if u.BySpec == nil {
			u.BySpec = make(map[string]int)
		}
		u.Total += n
		u.BySpec[k.spec] += n
		out[k.project] = u
	}
	return out
}
