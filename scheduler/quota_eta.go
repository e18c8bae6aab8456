package scheduler

import "slices"

// The ETA replay of tasks that wait on their project's concurrent limit: each limit of a
// project is replayed as a pool of its own whose cards ("tokens") come free as the project's
// running tasks are expected to end, and the project's replayed tasks take its tokens as the
// scheduler gives them (see fitTokens). A task waiting on the limit thus starts when both
// enough of the project's own cards have ended and cards are free.

// QuotaWait says which concurrent limit a task waiting on its project's quota waits for, and
// by how much.
type QuotaWait struct {
	Project string
	// Spec is the limit's spec; "" for the limit on every spec together.
	Spec string
	// Limit is the project's limit, InUse the cards the project holds under it now (those
	// just placed included), Needs how many more the task needs than the limit leaves:
	// InUse + the task's cards − Limit.
	Limit, InUse, Needs int
}

// qkeyAll is the key of a project's limit on every spec together.
const qkeyAll = -1

// detailConcurrent is DetailConcurrentLimit's index in details.
const detailConcurrent = 2

// qlimit is one concurrent limit of one project in the ETA replay.
type qlimit struct {
	limit, held int32
	// h holds the limit's free tokens by side (side50, side90): the cards under the limit
	// come free when the project's cards held now end (expected, latest), beyond those held
	// over the limit.
	h [2]slots
	// fit is each replayed task's start under the limit, by side and queue position (see
	// fitLimit).
	fit [2]map[int32]int64
}

// quotaReplay holds the limits of the projects replayed, built as tasks need them.
type quotaReplay struct {
	d      *decider
	limits map[[2]int32]*qlimit // by project and spec name index (qkeyAll: every spec)
	keys   [][2]int32
	// grow is each place's expected new machines (see growth); floors the floors of the
	// asks seen (see floor), by place, cards, lane and side (with or without growth).
	grow   []slots
	floors map[[4]int32]int64
}

// limitsOf lists in q.keys the limits task st counts against on place s: none when its
// project has no quota or may overflow.
func (q *quotaReplay) limitsOf(st *tstate, s int32) [][2]int32 {
	q.keys = q.d.limitsOf(q.keys[:0], st.proj, s)
	return q.keys
}

// limitsOf appends to keys the concurrent limits a task of project p counts against on
// place s: none when the project has no quota or may overflow.
func (d *decider) limitsOf(keys [][2]int32, p, s int32) [][2]int32 {
	pq := &d.quota[p]
	if pq.q == nil || pq.q.Overflow {
		return keys
	}
	if pq.q.MaxGPUs > 0 {
		keys = append(keys, [2]int32{p, qkeyAll})
	}
	if ns := d.f.specs[s].nameIdx; pq.limit != nil && pq.limit[ns] >= 0 {
		keys = append(keys, [2]int32{p, ns})
	}
	return keys
}

// limit is the replay's state of one limit, built at first use.
func (q *quotaReplay) limit(key [2]int32) *qlimit {
	if l, ok := q.limits[key]; ok {
		return l
	}
	l := &qlimit{}
	var ends [2][]int64
	l.limit, l.held, ends = q.d.quotaUse(key)
	l.h = [2]slots{tokens(l.limit, ends[side50]), tokens(l.limit, ends[side90])}
	q.fitLimit(key, l)
	q.limits[key] = l
	return l
}

// quotaUse is a project's limit (key: project and spec name index, or qkeyAll), the cards
// it holds under it now (its running tasks' and those placed in this pass) and when each of
// them is expected to end, by side.
func (d *decider) quotaUse(key [2]int32) (limit, held int32, ends [2][]int64) {
	p, ns := key[0], key[1]
	pq := &d.quota[p]
	if ns == qkeyAll {
		limit, held = int32(min(pq.q.MaxGPUs, maxTokens)), pq.held
	} else {
		limit, held = pq.limit[ns], pq.bySpec[ns]
	}
	add := func(n int32, end50, end90 int64) {
		for range n {
			ends[side50], ends[side90] = append(ends[side50], end50), append(ends[side90], end90)
		}
	}
	// The project's cards as quotas count them: each card of a node once.
	name := d.q.projName[p]
	seen := make(map[int64]bool)
	for i := range d.snap.Running {
		r := &d.snap.Running[i]
		if r.Project != name {
			continue
		}
		_, end90 := runningEnds(r, d.now)
		end50 := d.etaEnd(r)
		for _, g := range r.GPUIDs {
			if s, ok := d.f.specOfGPU[g]; ok && !seen[g] && (ns == qkeyAll || d.f.specs[s].nameIdx == ns) {
				seen[g] = true
				add(1, end50, end90)
			}
		}
	}
	for i := range d.st {
		st := &d.st[i]
		if st.placed && st.proj == p && (ns == qkeyAll || d.f.specs[st.where].nameIdx == ns) {
			add(st.gpus, after(0, st.e50), after(0, st.d90))
		}
	}
	return limit, held, ends
}

// maxTokens bounds a limit as the replay counts it.
const maxTokens = 1 << 30

// tokens are the free tokens of a limit of limit cards whose held cards end at ends: what
// is free now, then a token at each end but for the first ends of cards held over the
// limit, which free none.
func tokens(limit int32, ends []int64) slots {
	slices.Sort(ends)
	free := int64(limit) - int64(len(ends))
	var h slots
	if free > 0 {
		h = append(h, slot{t: 0, n: int32(free)})
	} else {
		ends = ends[-free:]
	}
	for _, e := range ends {
		if n := len(h); n > 0 && h[n-1].t == e {
			h[n-1].n++
			continue
		}
		h = append(h, slot{t: e, n: 1})
	}
	return h // sorted by t
}

// wait explains why the task at queue position i waits on its project's concurrent limit:
// of the limits it counts against on the place it is expected to start on (else the first it
// could run on), the one it passes by the most.
func (q *quotaReplay) wait(i int32) *QuotaWait {
	d := q.d
	st := &d.st[i]
	s := st.where
	if s < 0 {
		d.candidates(st.spec, st.gpus, st.lane)
		if len(d.cand) == 0 {
			return nil
		}
		s = d.cand[0]
	}
	var w *QuotaWait
	for _, key := range q.limitsOf(st, s) {
		l := q.limit(key)
		needs := int(l.held) + int(st.gpus) - int(l.limit)
		if needs <= 0 || w != nil && needs <= w.Needs {
			continue
		}
		w = &QuotaWait{Project: d.q.projName[st.proj], Limit: int(l.limit), InUse: int(l.held), Needs: needs}
		if key[1] != qkeyAll {
			w.Spec = d.f.names[key[1]]
		}
	}
	return w
}

// explain sets the Quota of each task of waiting (the plan's, in queue order) that waits on
// its project's concurrent limit.
func (q *quotaReplay) explain(waiting []Waiting) {
	k := 0
	for i := range q.d.st {
		st := &q.d.st[i]
		if st.placed {
			continue
		}
		if st.reason == rQuota && st.detail == detailConcurrent {
			waiting[k].Quota = q.wait(int32(i))
		}
		k++
	}
}
