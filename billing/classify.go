package billing

import (
	"sort"

	"kashi/models"
)

// Breakdown splits held card-seconds into classes that partition them by what the cards did:
// the fields always add up to the held (nominal) seconds, however the task ended. A task's
// card time is classed by its GPUs' readings (Classify); an inference service replica's by
// what its service served (Serving and Idle only; see models.ServiceServing).
type Breakdown struct {
	// Setup is from the allocation's start until the first 5-minute bucket with an active
	// reading.
	Setup int64 `json:"setup_s"`
	// Active, LowUtil and Idle are the seconds of buckets with readings, split by the
	// bucket's counts of active, low-util and idle readings.
	Active  int64 `json:"active_s"`
	LowUtil int64 `json:"low_util_s"`
	Idle    int64 `json:"idle_s"`
	// NoData is held seconds without readings.
	NoData int64 `json:"no_data_s"`
	// Serving is a service replica's seconds in 5-minute buckets in which its service served
	// a request: effective, like Active. Absent without services, so bills before them keep
	// their shape.
	Serving int64 `json:"serving_s,omitempty"`
	// Rerun is the seconds of an attempt that was rerun (its node lost) from its last
	// checkpoint, or its start without one, to its end: work done again by the next attempt,
	// whatever the cards did. Absent without reruns, so bills before them keep their shape.
	Rerun int64 `json:"rerun_s,omitempty"`
	// Trial is the seconds of a trial's run (小规模验证: a task tried at a small size for a
	// bounded time before its full run), whatever the cards did. Absent without trials, so
	// bills before them keep their shape.
	Trial int64 `json:"trial_s,omitempty"`
}

// Nominal is all held seconds.
func (b Breakdown) Nominal() int64 {
	return b.Setup + b.Active + b.Serving + b.LowUtil + b.Idle + b.NoData + b.Rerun + b.Trial
}

// Effective is the seconds the cards did the work they were held for: active, or serving.
func (b Breakdown) Effective() int64 { return b.Active + b.Serving }

// Add adds o to b.
func (b *Breakdown) Add(o Breakdown) {
	b.Setup += o.Setup
	b.Active += o.Active
	b.Serving += o.Serving
	b.LowUtil += o.LowUtil
	b.Idle += o.Idle
	b.NoData += o.NoData
	b.Rerun += o.Rerun
	b.Trial += o.Trial
}

// IsInterrupted reports whether a task with this ending (models.TaskEnding) was interrupted,
// its work since its last checkpoint wasted: it failed, was lost with its node, timed out,
// or was reclaimed or released. A finished or cancelled task wasted nothing.
func IsInterrupted(ending string) bool {
	switch ending {
	case models.EndFailed, models.EndLost, models.EndTimedOut, models.EndReclaimed, models.EndReleased:
		return true
	}
	return false
}

// Wasted is the card-seconds of the allocation held that fall in window and that an
// interrupted task t lost: those after its last checkpoint, or all of them when it reported
// none. It is a figure of its own beside the classes, which it overlaps. An allocation of an
// attempt that was rerun is not the task's last: its lost seconds are its Rerun class
// (wastedOf).
func Wasted(held, window Span, t *models.LedgerTask) int64 {
	if t == nil || !IsInterrupted(t.Ending) {
		return 0
	}
	if t.CheckpointAt > 0 {
		held.Start = max(held.Start, t.CheckpointAt)
	}
	return held.Clip(window).Seconds()
}

// spanSet counts the spans a line's allocations held, each with how many held it: a task's
// cards mostly share one span, kept without a slice.
type spanSet struct {
	one  Span
	n    int64
	more []spanCount
}

type spanCount struct {
	span Span
	n    int64
}

func (s *spanSet) add(sp Span) {
	if s.n == 0 || s.one == sp {
		s.one = sp
		s.n++
		return
	}
	for i := range s.more {
		if s.more[i].span == sp {
			s.more[i].n++
			return
		}
	}
	s.more = append(s.more, spanCount{sp, 1})
}

// wasted is the Wasted seconds of all the spans of s in window, for their task t.
func (s *spanSet) wasted(window Span, t *models.LedgerTask) int64 {
	w := s.n * Wasted(s.one, window, t)
	for _, c := range s.more {
		w += c.n * Wasted(c.span, window, t)
	}
	return w
}

// classifyHeld classes the seconds of allocation a that fall in window, given its span held
// and its GPU's rollups (as Classify): a service replica's by what its service served
// (serving.Split, as the Models page classes them), any other task's by its GPU's readings,
// those of an attempt that was rerun from its RerunFrom on as Rerun; a trial's run's all as
// Trial.
func classifyHeld(a *models.LedgerAllocation, held, window Span, rs []models.GPURollup, serving models.ServiceServing) Breakdown {
	if a.Trial {
		return Breakdown{Trial: held.Clip(window).Seconds()}
	}
	service, ok := serving.ServiceOf(a.TaskID)
	if !ok && a.RerunFrom > 0 {
		from := max(held.Start, a.RerunFrom)
		b := Classify(held, Span{window.Start, min(window.End, from)}, rs)
		b.Rerun = Span{from, held.End}.Clip(window).Seconds()
		return b
	}
	if !ok {
		return Classify(held, window, rs)
	}
	in := held.Clip(window)
	var b Breakdown
	b.Serving, b.Idle = serving.Split(service, in.Start, in.End)
	return b
}

// Classify splits the seconds of the allocation held seconds that fall in window, given the
// allocation's whole span held and its GPU's 5-minute rollups sorted by bucket (the rollups
// must reach back to the allocation's start for setup to be found).
//
// The rules, in order: seconds before the first bucket (overlapping the allocation) with an
// active reading are Setup; an allocation never active has no setup, so that cards held and
// never used show as idle. How the task ended does not matter: a reclaimed task's idle
// seconds are idle. Later seconds take the class of their bucket's readings: a bucket's
// overlap is split by its counts of active, low-util (neither) and idle readings with
// integer largest-remainder rounding, so the parts add up to the overlap exactly; seconds in
// no bucket, or in one without readings, are NoData. The thresholds are those in force when the bucket was rolled up.
func Classify(held, window Span, rollups []models.GPURollup) Breakdown {
	in := held.Clip(window)
	if in.Seconds() == 0 {
		return Breakdown{}
	}
	var b Breakdown
	// i0 is the first bucket that ends after the allocation starts.
	i0 := sort.Search(len(rollups), func(i int) bool { return rollups[i].Bucket+models.Rollup5m > held.Start })
	setupEnd := held.Start
	for i := i0; i < len(rollups) && rollups[i].Bucket < held.End; i++ {
		if rollups[i].NActive > 0 {
			setupEnd = max(held.Start, rollups[i].Bucket)
			break
		}
	}
	b.Setup = Span{held.Start, setupEnd}.Clip(in).Seconds()
	cur := max(in.Start, setupEnd)
	j := sort.Search(len(rollups), func(i int) bool { return rollups[i].Bucket+models.Rollup5m > cur })
	for ; j < len(rollups) && rollups[j].Bucket < in.End && cur < in.End; j++ {
		r := rollups[j]
		part := Span{max(r.Bucket, cur), min(r.Bucket+models.Rollup5m, in.End)}
		b.NoData += part.Start - cur
		splitBucket(&b, part.Seconds(), r)
		cur = part.End
	}
	if cur < in.End {
		b.NoData += in.End - cur
	}
	return b
}

// splitBucket adds ov seconds to b in the proportions of r's active, low-util and idle
// counts, by largest remainder: each part is floor(ov × count / n), and the seconds left
// over (at most two) go to the parts with the largest remainders, ties to the busier class.
func splitBucket(b *Breakdown, ov int64, r models.GPURollup) {
	if ov <= 0 {
		return
	}
	counts := [3]int64{max(0, r.NActive), max(0, r.N-r.NActive-r.NIdle), max(0, r.NIdle)}
	n := counts[0] + counts[1] + counts[2] // r.N when the counts are consistent
	if r.N <= 0 || n <= 0 {
		b.NoData += ov
		return
	}
	var q, rem [3]int64
	left := ov
	for i, c := range counts {
		q[i], rem[i] = ov*c/n, ov*c%n
		left -= q[i]
	}
	for ; left > 0; left-- {
		k := 0
		for i := 1; i < 3; i++ {
			if rem[i] > rem[k] {
				k = i
			}
		}
		q[k]++
		rem[k] = -1
	}
	b.Active += q[0]
	b.LowUtil += q[1]
	b.Idle += q[2]
}

// wastedOf is the wasted seconds of allocation a, classed as b, in window: its rerun seconds
// for an attempt that was rerun, none for a trial's run (stopped at its bound by design),
// else those Wasted counts for its task t.
func wastedOf(a *models.LedgerAllocation, b Breakdown, held, window Span, t *models.LedgerTask) int64 {
	if a.Trial {
		return 0
	}
	if a.RerunFrom > 0 {
		return b.Rerun
	}
	return Wasted(held, window, t)
}
