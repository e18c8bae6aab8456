package scheduler

import (
	"slices"
)

// A task waiting for g cards on one node of a full place starts when the first node holds
// them: at the first of several uncertain ends. The median of that first time is earlier than
// the first of the ends' own medians — each node adds its own chance — which is what the
// replay's point ends gave: p50s of 35 minutes for 8-card waits of 1 to 10 in the demo,
// whose tasks end within −20 % to +25 % of their estimates. likelyFree reads each running
// task's end as the spread of its project's recent runtimes against their estimates
// (Snapshot.Runtimes, as etaEnd reads their median) and finds the median of the first time a
// node holds the cards.

// endOdds is a running task's end for the ETAs as odds, offsets from now: its start plus its
// estimate times one of its project's ratios of runtime to estimate above what it has run
// so far, each as likely, at most its max runtime; a point (at) without ratios.
type endOdds struct {
	at    int64     // its expected end (etaEnd), where it has no ratios
	start int64     // when it started
	last  int64     // its max runtime's end; never for none
	est   float64   // its estimated runtime, in nanoseconds
	xs    []float64 // the ratios it may still end at, sorted; nil: the point at
}

// ended is the chance the task has ended by offset t.
func (e *endOdds) ended(t int64) float64 {
	if e.xs == nil {
		if t >= e.at {
			return 1
		}
		return 0
	}
	if t >= e.last {
		return 1
	}
	x := float64(t-e.start) / e.est
	k, _ := slices.BinarySearch(e.xs, x)
	for k < len(e.xs) && e.xs[k] <= x {
		k++
	}
	return float64(k) / float64(len(e.xs))
}

// endOddsOf is running task r's end as odds (see endOdds).
func (d *decider) endOddsOf(r *Running) endOdds {
	e := endOdds{at: d.etaEnd(r), last: never}
	xs := d.snap.Runtimes.of(r.Project)
	if r.EstRuntime <= 0 || xs == nil || e.at < d.runEnd(r) {
		return e // no odds, or idle reclaim ends it first (etaEnd)
	}
	ran := float64(d.now.Sub(r.StartedAt)) / float64(r.EstRuntime)
	i, _ := slices.BinarySearch(xs, ran)
	for i < len(xs) && xs[i] <= ran {
		i++
	}
	if i == len(xs) {
		return e // it outlived them all: its latest end (etaEnd)
	}
	e.start, e.est, e.xs = int64(r.StartedAt.Sub(d.now)), float64(r.EstRuntime), xs[i:]
	if r.MaxRuntime > 0 {
		e.last = after(e.start, r.MaxRuntime)
	}
	return e
}

// oddsNode is a node of a place with the running tasks on it: their cards and their ends'
// odds.
type oddsNode struct {
	free  int32
	cards []int32
	ends  []*endOdds
}

// likelyFree is the offset from now by which, with even odds, g cards (no more than a node
// holds) are free together on one node of place s (for a long task, d.long, not a
// short-only one) as its tasks end (endOddsOf); never when the odds stay under even by hi.
func (d *decider) likelyFree(s, g int32, hi int64) int64 {
	f := d.f
	if d.odds == nil {
		d.odds = make([]endOdds, len(d.snap.Running))
		for i := range d.snap.Running {
			d.odds[i] = d.endOddsOf(&d.snap.Running[i])
		}
	}
	sp := &f.specs[s]
	nodes := make([]oddsNode, 0, sp.n)
	at := make(map[int32]int, sp.n)
	for ni := sp.first; ni < sp.first+sp.n; ni++ {
		if n := &f.nodes[ni]; n.size >= g && !(n.shortOnly && d.long) {
			at[ni] = len(nodes)
			nodes = append(nodes, oddsNode{free: n.free})
		}
	}
	for _, e := range f.events {
		if k, ok := at[e.node]; ok {
			end := &endOdds{at: e.eta50, last: never} // a task placed now: its expected end
			if e.run >= 0 {
				end = &d.odds[e.run]
			}
			nodes[k].cards = append(nodes[k].cards, e.n)
			nodes[k].ends = append(nodes[k].ends, end)
		}
	}
	buf := make([]float64, g+1)
	even := func(t int64) bool {
		none := 1.0 // the chance no node holds the cards by t
		for k := range nodes {
			none *= 1 - nodeFree(&nodes[k], g, t, buf)
			if none <= 0.5 {
				return true
			}
		}
		return false
	}
	if !even(hi) {
		return never
	}
	lo := int64(0)
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if even(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// nodeFree is the chance n holds g free cards by offset t, its tasks ending independently;
// buf has g+1 places.
func nodeFree(n *oddsNode, g int32, t int64, buf []float64) float64 {
	need := g - n.free
	if need <= 0 {
		return 1
	}
	// buf[c]: the chance c of the cards needed came free (need: that many or more).
	clear(buf[:need+1])
	buf[0] = 1
	for k, end := range n.ends {
		p := end.ended(t)
		if p == 0 {
			continue
		}
		for c := need - 1; c >= 0; c-- {
			if buf[c] == 0 {
				continue
			}
			moved := buf[c] * p
			buf[c] -= moved
			buf[min(c+n.cards[k], need)] += moved
		}
	}
	return buf[need]
}
