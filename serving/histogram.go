package serving

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// Histogram is a Prometheus histogram as a server exposes it: ascending bucket upper bounds,
// the last one +Inf, each with the cumulative count of observations at or below it.
type Histogram struct {
	Bounds []float64
	Counts []uint64
	Sum    float64
	// Narrowed is true when replicas with different bounds were merged: only the bounds they
	// all share were kept, so the percentiles are coarser than any one replica's.
	Narrowed bool
}

// Count is the number of observations (the +Inf bucket).
func (h *Histogram) Count() uint64 {
	if h == nil || len(h.Counts) == 0 {
		return 0
	}
	return h.Counts[len(h.Counts)-1]
}

// check refuses bounds that are not ascending or do not end at +Inf, and counts that go down.
func (h *Histogram) check() error {
	if len(h.Bounds) == 0 || len(h.Bounds) != len(h.Counts) || !math.IsInf(h.Bounds[len(h.Bounds)-1], 1) {
		return fmt.Errorf("no +Inf bucket")
	}
	for i := range h.Bounds {
		if math.IsNaN(h.Bounds[i]) || math.IsInf(h.Bounds[i], -1) || i > 0 && h.Bounds[i] <= h.Bounds[i-1] {
			return fmt.Errorf("bucket bounds not ascending at %v", h.Bounds[i])
		}
		if i > 0 && h.Counts[i] < h.Counts[i-1] {
			return fmt.Errorf("bucket counts go down at le=%v", h.Bounds[i])
		}
	}
	if math.IsNaN(h.Sum) || math.IsInf(h.Sum, 0) {
		return fmt.Errorf("sum %v", h.Sum)
	}
	return nil
}

// wentDown reports whether cur cannot follow prev on one running server: a bucket's count or
// the set of bounds changed in a way only a restart explains.
func (h *Histogram) wentDown(cur *Histogram) bool {
	if h == nil || cur == nil {
		return h != nil
	}
	if !slices.Equal(h.Bounds, cur.Bounds) {
		return true
	}
	for i := range h.Counts {
		if cur.Counts[i] < h.Counts[i] {
			return true
		}
	}
	return false
}

// minus is cur - h bucket by bucket; the caller checked !h.wentDown(cur).
func (h *Histogram) minus(cur *Histogram) *Histogram {
	if cur == nil {
		return nil
	}
	if h == nil {
		return cur.clone()
	}
	d := &Histogram{Bounds: slices.Clone(cur.Bounds), Counts: make([]uint64, len(cur.Counts)), Sum: cur.Sum - h.Sum}
	for i := range cur.Counts {
		d.Counts[i] = cur.Counts[i] - h.Counts[i]
	}
	return d
}

func (h *Histogram) clone() *Histogram {
	if h == nil {
		return nil
	}
	return &Histogram{Bounds: slices.Clone(h.Bounds), Counts: slices.Clone(h.Counts), Sum: h.Sum, Narrowed: h.Narrowed}
}

// mergeHistograms adds histograms bucket by bucket. When their bounds differ it keeps only
// the bounds all of them have (+Inf always is one): the cumulative count at a shared bound is
// exact in each, so the result is exact there, and Narrowed says bounds were dropped.
func mergeHistograms(hs ...*Histogram) *Histogram {
	var out *Histogram
	for _, h := range hs {
		if h == nil {
			continue
		}
		if out == nil {
			out = h.clone()
			continue
		}
		out = out.plus(h)
	}
	return out
}

func (h *Histogram) plus(o *Histogram) *Histogram {
	out := &Histogram{Sum: h.Sum + o.Sum, Narrowed: h.Narrowed || o.Narrowed || !slices.Equal(h.Bounds, o.Bounds)}
	i, j := 0, 0
	for i < len(h.Bounds) && j < len(o.Bounds) {
		switch {
		case h.Bounds[i] < o.Bounds[j]:
			i++
		case h.Bounds[i] > o.Bounds[j]:
			j++
		default:
			out.Bounds = append(out.Bounds, h.Bounds[i])
			out.Counts = append(out.Counts, h.Counts[i]+o.Counts[j])
			i++
			j++
		}
	}
	return out
}

// Quantile is the q-quantile (0 ≤ q ≤ 1) of the observations, interpolated linearly within
// the bucket it falls in, as Prometheus's histogram_quantile does: the first bucket starts at
// 0 (or at its bound when that is not positive), and a rank in the +Inf bucket gives the
// highest finite bound. ok is false when there are no observations, fewer than two buckets,
// or q is outside [0, 1].
func (h *Histogram) Quantile(q float64) (v float64, ok bool) {
	if h == nil || len(h.Bounds) < 2 || h.Count() == 0 || !(q >= 0 && q <= 1) {
		return 0, false
	}
	rank := q * float64(h.Count())
	b := sort.Search(len(h.Counts)-1, func(i int) bool { return float64(h.Counts[i]) >= rank })
	if b == len(h.Bounds)-1 {
		return h.Bounds[len(h.Bounds)-2], true
	}
	if b == 0 && h.Bounds[0] <= 0 {
		return h.Bounds[0], true
	}
	start, end, below := 0.0, h.Bounds[b], 0.0
	if b > 0 {
		start, below = h.Bounds[b-1], float64(h.Counts[b-1])
	}
	inBucket := float64(h.Counts[b]) - below
	if inBucket == 0 {
		return end, true
	}
	f := (rank - below) / inBucket
	if v := start + (end-start)*f; !math.IsInf(v, 0) {
		return v, true
	}
	return start*(1-f) + end*f, true // bounds so far apart that end-start overflows
}
