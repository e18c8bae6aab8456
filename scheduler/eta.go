package scheduler

import (
	"cmp"
	"slices"
	"time"
)

// slot is n cards of one place that come free at offset t, free from then on; grown when
// they are new machines the scaling loop is expected to add for tasks waiting for cards.
type slot struct {
	t     int64
	n     int32
	grown bool
}

// slots are a place's cards by when they come free, sorted by t.
type slots []slot

// sorted sorts h by t.
func (h slots) sorted() slots {
	slices.SortFunc(h, func(a, b slot) int { return cmp.Compare(a.t, b.t) })
	return h
}

// replay is the ETA simulation state: per place and side (side50, side90), when its cards
// come free.
type replay struct {
	h [2][]slots
}

// estimate replays the waiting queue to give ETAs; see Decide.
func (d *decider) estimate() *quotaReplay {
	qr := &quotaReplay{d: d, limits: make(map[[2]int32]*qlimit)}
	if d.pol.ETADepth < 0 {
		return qr
	}
	// With short-only nodes, long tasks replay against the cards of the other nodes; short
	// tasks against all, where the long tasks' starts are held too.
	grow := d.growth()
	qr.grow = grow
	all := d.newReplay(false, grow)
	long := &all
	if d.f.shortOnly > 0 {
		rest := d.newReplay(true, grow)
		long = &rest
	}
	depth := make([]int, len(d.ps.sets)+1) // the last counts tasks accepting any place
	for pass := 0; pass < 2; pass++ {
		for i := range d.st {
			st := &d.st[i]
			if !etaReplayed(st, pass) {
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
			rp := &all
			if st.lane == laneLong {
				rp = long
			}
			s := d.cand[0]
			if st.head {
				s = st.where // the reservation's place
				// Its reservation's time is its floor (see start), on each side by the ends
				// that side expects rather than by Decide's; new machines of the place are
				// free whole: the head needs no reserved node once enough are up.
				st.minStart = 0
			} else if len(d.cand) > 1 {
				best, pref := int64(never), d.prefOf(int32(i))
				for _, c := range d.cand {
					at := qr.start(rp, side50, int32(i), c, false)
					if at < best || at == best && at != never && pref != "" && d.f.specs[c].region == pref && d.f.specs[s].region != pref {
						s, best = c, at
					}
				}
			}
			st.eta50 = qr.start(rp, side50, int32(i), s, true)
			st.eta90 = qr.start(rp, side90, int32(i), s, true)
			if st.eta50 != never {
				st.where = s
			}
			if rp != &all && st.eta50 != never {
				all.hold(s, g, st.eta50, st.e50, st.eta90, st.d90, st.deferred)
			}
			// The two replays can part ways where a task starts in one and never in the
			// other; keep the pair in order.
			if st.eta50 == never {
				st.eta90 = never
			}
			st.eta90 = max(st.eta90, st.eta50)
		}
	}
	// The recent history's stretch, once every task has taken its place: later tasks read
	// the holders' replayed starts.
	for i := range d.st {
		st := &d.st[i]
		if c := etaClass(reasons[st.reason], details[st.detail]); c >= 0 && !st.placed {
			k := d.snap.Stretch[c]
			st.eta50, st.eta90 = stretched(st.eta50, k.P50), stretched(st.eta90, k.P90)
			st.eta90 = max(st.eta90, st.eta50)
		}
	}
	return qr
}

// Sides of the ETA replay: by expected ends and runtimes (p50), and by their latest bounds
// (p90).
const (
	side50 = 0
	side90 = 1
)

// start is when the task at queue position i starts on place s on side k of replay rp:
// when its cards and the tokens of every limit of its project it counts against are free, no
// earlier than its minStart nor than its floor on that side. Decide did not place it now, so
// where the replay would start it at once it starts at the place's next change (a card
// coming free, a machine coming up). With commit it holds them from then for its runtime.
func (q *quotaReplay) start(rp *replay, k int, i int32, s int32, commit bool) int64 {
	st := &q.d.st[i]
	dur := [2]time.Duration{st.e50, st.d90}[k]
	from := max(st.minStart, q.floor(st, s, k))
	keys := q.limitsOf(st, s)
	// A deferrable task is no demand for machines: it takes no card of one only it awaits.
	at := max(rp.take(&rp.h[k][s], st.gpus, from, dur, false, st.deferred), q.limitStart(keys, k, i, from, dur, false))
	if at == 0 {
		if next := rp.h[k][s].next(st.deferred); next != never {
			from = next
			at = max(rp.take(&rp.h[k][s], st.gpus, from, dur, false, st.deferred), from, q.limitStart(keys, k, i, from, dur, false))
		}
	}
	if commit && at != never {
		rp.take(&rp.h[k][s], st.gpus, at, dur, true, st.deferred)
		q.limitStart(keys, k, i, at, dur, true)
	}
	return at
}

// limitStart is when the task at queue position i has the tokens of limits keys on side k,
// no earlier than from: its start in the limit's replay (fitLimit), or where that did not
// count it (it is replayed on a place of another spec) when the tokens come free, which with
// commit it then holds for dur.
func (q *quotaReplay) limitStart(keys [][2]int32, k int, i int32, from int64, dur time.Duration, commit bool) int64 {
	var rp replay
	at := int64(0)
	for _, key := range keys {
		l := q.limit(key)
		if t, ok := l.fit[k][i]; ok {
			at = max(at, t)
		} else {
			at = max(at, rp.take(&l.h[k], q.d.st[i].gpus, from, dur, commit, false))
		}
	}
	return at
}

// newReplay builds the replay's card pools from the free cards, the ends of the running
// and just-placed tasks (with longOnly, of the nodes that are not short-only) and the
// places' growth.
func (d *decider) newReplay(longOnly bool, grow []slots) replay {
	f := d.f
	ns := len(f.specs)
	rp := replay{h: [2][]slots{make([]slots, ns), make([]slots, ns)}}
	free := make([]int32, ns)
	for i := range f.nodes {
		if n := &f.nodes[i]; !(longOnly && n.shortOnly) {
			free[n.spec] += n.free
		}
	}
	for s := range f.specs {
		if free[s] > 0 {
			rp.h[side50][s] = append(rp.h[side50][s], slot{t: 0, n: free[s]})
			rp.h[side90][s] = append(rp.h[side90][s], slot{t: 0, n: free[s]})
		}
	}
	for _, e := range f.events {
		if n := &f.nodes[e.node]; !(longOnly && n.shortOnly) {
			rp.h[side50][n.spec] = append(rp.h[side50][n.spec], slot{t: e.eta50, n: e.n})
			rp.h[side90][n.spec] = append(rp.h[side90][n.spec], slot{t: e.end90, n: e.n})
		}
	}
	for s, g := range grow {
		rp.h[side50][s] = append(rp.h[side50][s], g...)
	}
	for s := range f.specs {
		rp.h[side50][s].sorted()
		rp.h[side90][s].sorted()
	}
	return rp
}

// hold takes g cards of spec s from start50 for d50 (and start90 for d90), as a task
// replayed elsewhere does.
func (rp *replay) hold(s int32, g int32, start50 int64, d50 time.Duration, start90 int64, d90 time.Duration, noGrowth bool) {
	rp.take(&rp.h[side50][s], g, start50, d50, true, noGrowth)
	rp.take(&rp.h[side90][s], g, start90, d90, true, noGrowth)
}

// take finds when g cards of h are free, no earlier than minStart: when the g cards that
// come free first are all free (with noGrowth, of the cards that are not grown). With commit
// it holds g cards for dur from then: those that come free last by then, so that the cards
// free earlier stay free for tasks that fit before (a replayed backfill). It returns never,
// and holds nothing, when g cards never come free.
func (rp *replay) take(h *slots, g int32, minStart int64, dur time.Duration, commit, noGrowth bool) int64 {
	a := *h
	need, last := g, int64(never)
	for k := 0; k < len(a) && need > 0; k++ {
		if !(noGrowth && a[k].grown) {
			need, last = need-a[k].n, a[k].t
		}
	}
	if need > 0 || last == never {
		return never
	}
	start := max(last, minStart)
	if start == never || !commit {
		return start
	}
	// The cards free by start, latest first: a[:j] come free by start.
	j, _ := slices.BinarySearchFunc(a, start+1, func(e slot, t int64) int { return cmp.Compare(e.t, t) })
	need, i := g, j
	for need > 0 {
		i--
		if e := &a[i]; !(noGrowth && e.grown) {
			took := min(e.n, need)
			e.n -= took
			need -= took
		}
	}
	w := i
	for r := i; r < j; r++ {
		if a[r].n > 0 {
			a[w] = a[r]
			w++
		}
	}
	a = append(a[:w], a[j:]...)
	end := slot{t: after(start, dur), n: g}
	at, _ := slices.BinarySearchFunc(a, end.t, func(e slot, t int64) int { return cmp.Compare(e.t, t) })
	*h = slices.Insert(a, at, end)
	return start
}

// next is when the first of h's cards comes free after now (with noGrowth, of the cards
// that are not grown); never when none does.
func (h slots) next(noGrowth bool) int64 {
	for _, e := range h {
		if e.t > 0 && !(noGrowth && e.grown) {
			return e.t
		}
	}
	return never
}

// growth is each place's new machines expected (see Growth), as grown slots: the machines
// booting, each when it is expected ready, then those the scaling loop is expected to ask
// for the tasks waiting for cards as the loop counts them (the scaler's demand rule: by
// their spec, from when they were submitted). Nil without growth.
func (d *decider) growth() []slots {
	if len(d.snap.Growth) == 0 {
		return nil
	}
	out := make([]slots, len(d.f.specs))
	var dem []demand
	for _, g := range d.snap.Growth {
		s, ok := d.f.placeOf(g.Spec, g.Region)
		if !ok {
			continue
		}
		dem = dem[:0]
		for i := range d.st {
			st := &d.st[i]
			if st.placed || st.deferred || st.reason != rNoFreeGPUs && st.reason != rBehind && st.reason != rNoSuchCapacity {
				continue
			}
			p := &d.snap.Pending[d.q.keys[i].idx]
			if p.Spec == g.Spec || p.Spec == "" && g.AnySpec {
				dem = append(dem, demand{at: int64(p.SubmittedAt.Add(g.Delay).Sub(d.now)), gpus: int64(max(p.GPUs, 0))})
			}
		}
		out[s] = g.slots(out[s], d.now, dem)
	}
	for s := range out {
		out[s].sorted()
	}
	return out
}

// growthHorizon bounds how far ahead a pool's growth is counted.
const growthHorizon = 30 * 24 * time.Hour

// demand is a waiting task's cards as the scaling loop counts them: from offset at, once it
// has waited the pool's delay.
type demand struct {
	at, gpus int64
}

// slots appends to h the cards g is expected to add for the demand dem, as offsets from now,
// as the scaling loop asks for them (see Growth): at each ask, nodes for the demand counted
// by then beyond the machines asked already (demand is taken as still waiting: cards that
// come free meanwhile are not subtracted, nor tasks submitted later added).
func (g Growth) slots(h slots, now time.Time, dem []demand) slots {
	n := int64(min(max(g.GPUsPerNode, 0), 1<<16))
	if n == 0 {
		return h
	}
	var up []int64 // when each machine asked is expected up
	for _, at := range g.Booting {
		t := max(int64(at.Sub(now)), 0)
		h = append(h, slot{t: t, n: int32(n), grown: true})
		up = append(up, t)
	}
	slices.SortFunc(dem, func(a, b demand) int { return cmp.Compare(a.at, b.at) })
	batch, step := max(g.Batch, 1), max(g.Step, 1)
	pass, boot := int64(max(g.Period, 0)/2), int64(max(g.Boot, 0))
	gap := int64(max(g.Every, g.Period, time.Minute))
	t := int64(0)
	if !g.LastUp.IsZero() {
		t = max(t, int64(g.LastUp.Add(g.Every).Sub(now))) // the cooldown after the last growth
	}
	asked, room := len(up), min(g.Room, 1<<16)
	cards, k := int64(0), 0
	for room > 0 && t < int64(growthHorizon) {
		// The first moment from t at which the demand counted needs more nodes than asked.
		for {
			for k < len(dem) && dem[k].at <= t {
				cards += dem[k].gpus
				k++
			}
			if (cards+n-1)/n > int64(asked) || k == len(dem) {
				break
			}
			t = dem[k].at
		}
		want := int((cards+n-1)/n) - asked
		if want <= 0 {
			break
		}
		// No more than batch booting at once: the loop asks again once one is up.
		booting, next := 0, int64(never)
		for _, u := range up {
			if u > t {
				booting++
				next = min(next, u)
			}
		}
		if booting >= batch {
			t = next
			continue
		}
		c := min((want+step-1)/step*step, room, batch-booting)
		at := t + pass + boot
		h = append(h, slot{t: at, n: int32(int64(c) * n), grown: true})
		for range c {
			up = append(up, at)
		}
		asked, room = asked+c, room-c
		t += pass + gap // the cooldown from the ask
	}
	return h
}

// floor is the earliest task st could start on place s on side k whatever the tasks before
// it do: when the cards it needs come free on one node (whole nodes for a task larger than a
// node) as running tasks end — on side50 the median of the first node's time by the odds of
// their ends (likelyFree), else as the ETAs expect them; on side90 by their latest ends — or,
// on side50 for a task that is demand for machines (not deferrable), new machines of the
// place bring them, whichever comes first. The replay counts a place's cards as one pool; the
// floor keeps the nodes' shape.
func (q *quotaReplay) floor(st *tstate, s int32, k int) int64 {
	mode := int32(k) << 1
	if k == side50 && st.deferred {
		mode |= 1
	}
	key := [4]int32{s, st.gpus, int32(st.lane), mode}
	if at, ok := q.floors[key]; ok {
		return at
	}
	d := q.d
	d.long = st.lane == laneLong
	ends := endsETA
	if k == side90 {
		ends = endsLatest
	}
	at := d.reservation(s, st.gpus, nil, ends)
	if k == side50 && at > 0 && at != never && st.gpus <= d.f.specs[s].maxSize && d.snap.Runtimes != nil {
		// The first node to hold the cards, by the odds of its tasks' ends.
		hi := d.reservation(s, st.gpus, nil, endsLatest)
		if hi == never {
			hi = growthHorizon.Nanoseconds()
		}
		if m := d.likelyFree(s, st.gpus, max(hi, at)); m != never {
			at = m
		}
	}
	if q.grow != nil && mode == 0 {
		var rp replay
		at = min(at, rp.take(&q.grow[s], st.gpus, 0, 0, false, false))
	}
	if q.floors == nil {
		q.floors = make(map[[4]int32]int64)
	}
	q.floors[key] = at
	return at
}
