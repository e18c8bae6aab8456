package scheduler

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
)

// TestFitTokensAsThePlainWalk: fitTokens, which skips the moments that free fewer tokens
// than any task left needs, starts every task when the plain walk of every moment and every
// task does, on random limits, ends and tasks.
func TestFitTokensAsThePlainWalk(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 37))
	for range 500 {
		var h slots
		if n := rng.IntN(8); n > 0 {
			h = append(h, slot{t: 0, n: int32(n)})
		}
		for range rng.IntN(20) {
			h = append(h, slot{t: int64(rng.IntN(50) + 1), n: int32(rng.IntN(4) + 1)})
		}
		h.sorted()
		ts := make([]fitTask, rng.IntN(30))
		for j := range ts {
			d := time.Duration(rng.IntN(40))
			if rng.IntN(10) == 0 {
				d = time.Duration(never)
			}
			ts[j] = fitTask{i: int32(j * 3), g: int32(rng.IntN(9) + 1), dur: [2]time.Duration{d, 2 * d}}
		}
		for k := range 2 {
			if diff := gocmp.Diff(plainFit(h, ts, k), fitTokens(h, ts, k)); diff != "" {
				t.Fatalf("fitTokens(%v, %v, %d) (-plain +got):\n%s", h, ts, k, diff)
			}
		}
	}
}

// plainFit walks every moment tokens come free and, at each, every task not started.
func plainFit(h slots, ts []fitTask, k int) map[int32]int64 {
	out := make(map[int32]int64, len(ts))
	for _, t := range ts {
		out[t.i] = never
	}
	var ends slots
	free, hi, left := int64(0), 0, len(ts)
	started := make([]bool, len(ts))
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
		for j := range ts {
			if started[j] || int64(ts[j].g) > free {
				continue
			}
			started[j], left, free = true, left-1, free-int64(ts[j].g)
			out[ts[j].i] = t
			if e := (slot{t: after(t, ts[j].dur[k]), n: ts[j].g}); e.t != never {
				ends = append(ends, e)
				slices.SortStableFunc(ends, func(a, b slot) int { return cmp.Compare(a.t, b.t) })
			}
		}
	}
	return out
}
