package scheduler

import "time"

// slot is n cards of one spec that come free at offset t.
type slot struct {
	t int64
	n int32
}

// slots is a min-heap of slots by t.
type slots []slot

func (h slots) less(i, j int) bool { return h[i].t < h[j].t }

func (h *slots) push(s slot) {
	*h = append(*h, s)
	a := *h
	for i := len(a) - 1; i > 0; {
		p := (i - 1) / 2
		if !a.less(i, p) {
			break
		}
		a[i], a[p] = a[p], a[i]
		i = p
	}
}

func (h *slots) pop() slot {
	a := *h
	top := a[0]
	last := len(a) - 1
	a[0] = a[last]
	a = a[:last]
	a.down(0)
	*h = a
	return top
}

func (h slots) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && h.less(r, l) {
			m = r
		}
		if !h.less(m, i) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

func (h slots) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

// replay is the ETA simulation state: per spec, when its cards come free.
type replay struct {
	h50, h90 []slots
	popped   []slot
}

// estimate replays the waiting queue to give ETAs; see Decide.
func (d *decider) estimate() {
	if d.pol.ETADepth < 0 {
		return
	}
	// With short-only nodes, long tasks replay against the cards of the other nodes; short
	// tasks against all, where the long tasks' starts are held too.
	all := d.newReplay(false)
	long := &all
	if d.f.shortOnly > 0 {
		rest := d.newReplay(true)
		long = &rest
	}
	depth := make([]int, len(d.ps.sets)+1) // the last counts tasks accepting any place
	offPeak := int64(NextOffPeak(d.now, d.pol).Sub(d.now))
	for pass := 0; pass < 2; pass++ {
		for i := range d.st {
			st := &d.st[i]
			switch {
			case st.placed:
				continue
			case pass == 0 && !st.deferred && (st.reason == rNoFreeGPUs || st.reason == rBehind || st.reason == rReservationWindow):
			case pass == 1 && st.deferred && st.reason == rOffPeakOnly:
				st.minStart = offPeak
			default:
				continue
			}
			g := st.gpus
			d.candidates(st.spec, g, st.lane)
			key := len(d.ps.sets)
			if st.spec >= 0 {
				key = int(st.spec)
			}
			if depth[key] >= d.pol.ETADepth {
				continue
			}
			depth[key]++
			d50, d90 := st.d50, st.d90
			rp := &all
			if st.lane == laneLong {
				rp = long
			}
			s := d.cand[0]
			if st.head {
				s = st.where // the reservation's place
			} else if len(d.cand) > 1 {
				best, pref := int64(never), d.prefOf(int32(i))
				for _, c := range d.cand {
					at := rp.take(&rp.h50[c], g, st.minStart, d50, false)
					if at < best || at == best && at != never && pref != "" && d.f.specs[c].region == pref && d.f.specs[s].region != pref {
						s, best = c, at
					}
				}
			}
			st.eta50 = rp.take(&rp.h50[s], g, st.minStart, d50, true)
			st.eta90 = rp.take(&rp.h90[s], g, st.minStart, d90, true)
			if st.eta50 != never {
				st.where = s
			}
			if rp != &all && st.eta50 != never {
				all.hold(s, g, st.eta50, d50, st.eta90, d90)
			}
			// The two replays can part ways where a task starts in one and never in the
			// other; keep the pair in order.
			if st.eta50 == never {
				st.eta90 = never
			}
			st.eta90 = max(st.eta90, st.eta50)
		}
	}
}

// newReplay builds the replay's card pools from the free cards and the ends of the running
// and just-placed tasks; with longOnly, of the nodes that are not short-only.
func (d *decider) newReplay(longOnly bool) replay {
	f := d.f
	ns := len(f.specs)
	rp := replay{h50: make([]slots, ns), h90: make([]slots, ns)}
	free := make([]int32, ns)
	for i := range f.nodes {
		if n := &f.nodes[i]; !(longOnly && n.shortOnly) {
			free[n.spec] += n.free
		}
	}
	for s := range f.specs {
		if free[s] > 0 {
			rp.h50[s] = append(rp.h50[s], slot{0, free[s]})
			rp.h90[s] = append(rp.h90[s], slot{0, free[s]})
		}
	}
	for _, e := range f.events {
		if n := &f.nodes[e.node]; !(longOnly && n.shortOnly) {
			rp.h50[n.spec] = append(rp.h50[n.spec], slot{e.end50, e.n})
			rp.h90[n.spec] = append(rp.h90[n.spec], slot{e.end90, e.n})
		}
	}
	for s := range f.specs {
		rp.h50[s].init()
		rp.h90[s].init()
	}
	return rp
}

// hold takes g cards of spec s from start50 for d50 (and start90 for d90), as a task
// replayed elsewhere does.
func (rp *replay) hold(s int32, g int32, start50 int64, d50 time.Duration, start90 int64, d90 time.Duration) {
	rp.take(&rp.h50[s], g, start50, d50, true)
	rp.take(&rp.h90[s], g, start90, d90, true)
}

// take finds when g cards of h are free, no earlier than minStart: the g cards that come
// free first, from when the last of them does. With commit it holds them for dur from then.
// It returns never, and holds nothing, when some of those cards never come free.
func (rp *replay) take(h *slots, g int32, minStart int64, dur time.Duration, commit bool) int64 {
	if a := *h; len(a) > 0 && a[0].n >= g {
		// Fast path: the cards that come free first are enough.
		start := max(a[0].t, minStart)
		if start == never || !commit {
			return start
		}
		if a[0].n == g {
			a[0] = slot{after(start, dur), g}
			a.down(0)
		} else {
			a[0].n -= g
			h.push(slot{after(start, dur), g})
		}
		return start
	}
	rp.popped = rp.popped[:0]
	need := g
	for need > 0 && len(*h) > 0 {
		e := h.pop()
		rp.popped = append(rp.popped, e)
		need -= e.n
	}
	start := int64(never)
	if need <= 0 {
		start = max(rp.popped[len(rp.popped)-1].t, minStart)
	}
	if start == never || !commit {
		for _, e := range rp.popped {
			h.push(e)
		}
		return start
	}
	if need < 0 {
		h.push(slot{rp.popped[len(rp.popped)-1].t, -need})
	}
	h.push(slot{after(start, dur), g})
	return start
}
