package scheduler

import (
	"slices"
	"sync"
	"time"
)

// The queue's own recent history calibrates its estimates: for each task that waited, the
// first estimate the replay gave it (before any stretch) against the wait it had. The
// replay's p50 wait is stretched by the median of the recent ratios (actual ÷ estimated
// wait), and its p90 wait, the max-runtime bound, by their 97th percentile when that is
// above 1: what the replay cannot see (tasks submitted later ahead in the queue, the nodes'
// shape, estimates that are off) shows in how the last tasks fared, class by class.

// ETA classes, each calibrated on its own: what a task waits for.
const (
	etaCapacity = iota // waiting for cards (no-free-gpus, behind, reservation-window)
	etaQuota           // waiting on the project's concurrent limit
	etaDeferred        // deferrable, outside the off-peak window
	etaClasses
)

// ETAStretch is what the estimates of each class are stretched by: P50 and P90 multiply the
// replay's p50 and p90 waits. Zero means 1.
type ETAStretch [etaClasses]struct{ P50, P90 float64 }

// Calibration bounds.
const (
	// etaHistoryLen is how many of the latest started tasks each class keeps.
	etaHistoryLen = 256
	// etaMinSamples is how many a class needs before it stretches its estimates.
	etaMinSamples = 20
	// etaP90Quantile is the share of the recent tasks whose wait the p90 stretch covers:
	// above 95 %, so that the p90 holds for 95 % of the tasks to come with a margin.
	etaP90Quantile = 0.97
	// etaMinWait is the least wait a ratio counts, so that an estimate of "now" is not a
	// division by zero.
	etaMinWait = time.Minute
)

// ETAHistory remembers the first estimate shown for each waiting task until it starts, and
// the ratios of the latest started ones. It is safe for concurrent use.
type ETAHistory struct {
	mu     sync.Mutex
	first  map[int64]etaShown
	ratios [etaClasses][2][]float64 // by class and side, in the order the tasks started
	// stretch is Stretch's answer while no ratio came since (fresh).
	stretch ETAStretch
	fresh   bool
}

// etaShown is a task's first estimate: when, its class and the replay's waits.
type etaShown struct {
	at       time.Time
	class    int
	w50, w90 time.Duration
}

// NewETAHistory returns an empty history.
func NewETAHistory() *ETAHistory { return &ETAHistory{first: make(map[int64]etaShown)} }

// Note reads a plan decided at now over snap: the waiting tasks' first estimates (those with
// one) are remembered, as the replay's waits (before snap.Stretch), the placed ones' waits
// become ratios, and tasks neither waiting nor placed (cancelled, or gone) are forgotten.
func (h *ETAHistory) Note(snap Snapshot, plan Plan, now time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, p := range plan.Placements {
		e, ok := h.first[p.TaskID]
		if !ok {
			continue
		}
		delete(h.first, p.TaskID)
		act := max(now.Sub(e.at), etaMinWait)
		for k, w := range [2]time.Duration{e.w50, e.w90} {
			rs := append(h.ratios[e.class][k], float64(act)/float64(max(w, etaMinWait)))
			if len(rs) > etaHistoryLen {
				rs = rs[len(rs)-etaHistoryLen:]
			}
			h.ratios[e.class][k] = rs
		}
		h.fresh = false
	}
	waiting := make(map[int64]bool, len(plan.Waiting))
	for _, w := range plan.Waiting {
		waiting[w.TaskID] = true
		c := etaClass(w.Reason, w.Detail)
		if _, ok := h.first[w.TaskID]; ok || c < 0 || w.ETAP50.IsZero() || w.ETAP90.IsZero() {
			continue
		}
		k := snap.Stretch[c]
		h.first[w.TaskID] = etaShown{at: now, class: c, w50: unstretched(w.ETAP50.Sub(now), k.P50),
			w90: unstretched(w.ETAP90.Sub(now), k.P90)}
	}
	for id := range h.first {
		if !waiting[id] {
			delete(h.first, id)
		}
	}
}

// Stretch is the calibration of the next estimates from the latest ratios.
func (h *ETAHistory) Stretch() ETAStretch {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.fresh {
		return h.stretch
	}
	var s ETAStretch
	for c := range s {
		if rs := h.ratios[c][side50]; len(rs) >= etaMinSamples {
			s[c].P50 = quantile(rs, 0.5)
		}
		if rs := h.ratios[c][side90]; len(rs) >= etaMinSamples {
			s[c].P90 = max(quantile(rs, etaP90Quantile), 1)
		}
	}
	h.stretch, h.fresh = s, true
	return s
}

// quantile is the q-quantile of xs (nearest rank), xs left unchanged.
func quantile(xs []float64, q float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[min(int(q*float64(len(s))), len(s)-1)]
}

// etaClass is the class of the estimate of a task waiting for r (detail); -1 for none.
func etaClass(r Reason, detail string) int {
	switch {
	case r == ReasonNoFreeGPUs || r == ReasonBehind || r == ReasonReservationWindow:
		return etaCapacity
	case r == ReasonQuota && detail == DetailConcurrentLimit:
		return etaQuota
	case r == ReasonOffPeakOnly:
		return etaDeferred
	}
	return -1
}

// unstretched is the replay's wait behind w, which k stretched.
func unstretched(w time.Duration, k float64) time.Duration {
	if k == 0 {
		return w
	}
	return time.Duration(float64(w) / k)
}

// stretched is the wait w (an offset from now; never stays never) times k (zero: 1).
func stretched(w int64, k float64) int64 {
	if w == never || k == 0 || w <= 0 {
		return w
	}
	if x := float64(w) * k; x < float64(never) {
		return int64(x)
	}
	return never
}
