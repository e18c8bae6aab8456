package scheduler

import (
	"cmp"
	"slices"
	"time"
)

// The scheduler holds no concurrent limit for the first task waiting on it: whenever the
// project's cards end, the tasks that fit under the limit start, in queue order, and a task
// needing more waits until that many are free at once. The replay of a limit does the same
// (fitTokens), so that a 16-card task at the head of a project's queue, which the smaller
// ones behind it pass, does not make them wait for its own start and runtime: the demo's
// 2-card quota waits were estimated 6 to 12 hours for starts within 10 to 90 minutes.

// fitTask is a task replayed against a limit: its queue position, cards and runtimes by side.
type fitTask struct {
	i   int32
	g   int32
	dur [2]time.Duration
}

// etaReplayed reports whether the ETA replay estimates st, in its first pass (tasks waiting
// for cards or on their project's concurrent limit) or its second (deferrable tasks outside
// the off-peak window).
func etaReplayed(st *tstate, pass int) bool {
	switch {
	case st.placed:
		return false
	case pass == 0:
		return !st.deferred && (st.reason == rNoFreeGPUs || st.reason == rBehind ||
			st.reason == rReservationWindow || st.reason == rQuota && st.detail == detailConcurrent)
	}
	return st.deferred && st.reason == rOffPeakOnly
}

// fitLimit replays limit l (key) for the tasks of its project the ETA replay estimates, in
// the replay's order, on both sides: each one's start under the limit (fitTokens), by queue
// position. A task counts against a limit of one spec where it is expected to start (else
// the first place it could run on).
func (q *quotaReplay) fitLimit(key [2]int32, l *qlimit) {
	d := q.d
	saved := d.cand // the caller may be walking its candidates
	d.cand = nil
	defer func() { d.cand = saved }()
	var ts []fitTask
	for pass := 0; pass < 2; pass++ {
		for i := range d.st {
			st := &d.st[i]
			if st.proj != key[0] || !etaReplayed(st, pass) {
				continue
			}
			if key[1] != qkeyAll {
				s := st.where
				if s < 0 {
					if d.candidates(st.spec, st.gpus, st.lane); len(d.cand) == 0 {
						continue
					}
					s = d.cand[0]
				}
				if d.f.specs[s].nameIdx != key[1] {
					continue
				}
			}
			ts = append(ts, fitTask{i: int32(i), g: st.gpus, dur: [2]time.Duration{st.e50, st.d90}})
		}
	}
	for k := range l.fit {
		l.fit[k] = fitTokens(l.h[k], ts, k)
	}
}

// fitTokens is when each of ts (in order) starts under a limit whose free tokens are h, on
// side k: at each moment tokens come free (h, or a task replayed here ending), every task
// not started that fits in the free tokens starts, in order; none holds tokens for one before
// it that does not fit. A task that never fits starts never.
func fitTokens(h slots, ts []fitTask, k int) map[int32]int64 {
	out := make(map[int32]int64, len(ts))
	for _, t := range ts {
		out[t.i] = never
	}
	var ends slots // the replayed tasks' ends, sorted by t
	free, hi := int64(0), 0
	// The tasks not started by how many tokens they need, each size's in order: at a moment,
	// the first task in order that fits starts, then the next that fits what is left, as a
	// walk of every task would start them, without walking those that do not fit.
	var sizes []int64
	for _, t := range ts {
		sizes = append(sizes, int64(t.g))
	}
	slices.Sort(sizes)
	sizes = slices.Compact(sizes)
	queue := make([][]int32, len(sizes)) // by size, as sizes
	for j, t := range ts {
		at, _ := slices.BinarySearch(sizes, int64(t.g))
		queue[at] = append(queue[at], int32(j))
	}
	left := len(ts)
	for left > 0 {
		t := int64(never)
		if hi < len(h) {
			t = h[hi].t
		}
		if len(ends) > 0 {
			t = min(t, ends[0].t)
		}
		if t == never {
			break
		}
		for ; hi < len(h) && h[hi].t == t; hi++ {
			free += int64(h[hi].n)
		}
		for len(ends) > 0 && ends[0].t == t {
			free += int64(ends[0].n)
			ends = ends[1:]
		}
		for {
			first, by := int32(-1), 0
			for b, g := range sizes {
				if g > free {
					break
				}
				if q := queue[b]; len(q) > 0 && (first < 0 || q[0] < first) {
					first, by = q[0], b
				}
			}
			if first < 0 {
				break
			}
			queue[by] = queue[by][1:]
			left, free = left-1, free-sizes[by]
			out[ts[first].i] = t
			if e := (slot{t: after(t, ts[first].dur[k]), n: ts[first].g}); e.t != never {
				at, _ := slices.BinarySearchFunc(ends, e.t, func(s slot, t int64) int { return cmp.Compare(s.t, t) })
				ends = slices.Insert(ends, at, e)
			}
		}
	}
	return out
}
