// Package rightsize advises the spec and card count of a task's next run from what its last
// run measured: its peak GPU memory and utilization per card over its life ("先估清楚再选卡型，
// 不为峰值多取" — estimate first, then choose the card; neither over-ask for an imagined peak
// nor under-ask and queue again). Advice is computed by the pure Advise and never acted on
// without a person: the task page, the template and the weekly report show it.
//
// The rules, in order:
//   - Too little evidence gives no advice: a run shorter than MinRuntime, or one whose cards
//     reported readings for less than MinCoverage of its life.
//   - A run none of whose cards went above IdleUtilPct did not use them: no spec or count is
//     advised, since nothing it measured says what it needs; the advice is to find why (a task
//     that never reached its GPUs, or waited on something else) before it asks for cards
//     again. What it saves is all it cost.
//   - Cards whose utilization never went above IdleUtilPct are idle cards: the next run asks
//     for the busy ones only ("4 of 8 cards never went above 5 %").
//   - The memory the run needs per card is its peak on any busy card plus Headroom. Of the
//     specs whose card holds that, the cheapest per card-hour is advised when it is cheaper than
//     the spec the run had ("peaked at 17 GiB of 80 GiB: an RTX4090-24G would hold it, at
//     28 % of the cost"). A smaller card is usually slower; when the run kept its cards busy
//     (mean utilization at least BusyUtilPct) the advice says so, as the run may take longer.
//   - Otherwise the run was sized right: no change.
package rightsize

import (
	"slices"
	"strings"

	"kashi/models"
)

// Thresholds of the rules above.
const (
	MinRuntimeS  = 10 * 60 // a run shorter than this gives no advice
	MinCoverage  = 50      // percent of a run's card-seconds that must have readings
	IdleUtilPct  = 5       // a card never above this is idle
	HeadroomPct  = 20      // memory asked beyond the peak
	BusyUtilPct  = 70      // a mean this high means a slower card would run longer
	MiBPerGiB    = 1024
	percentWhole = 100
)

// Card is what one card of a run measured over the run's life.
type Card struct {
	// PeakMemMiB and PeakUtilPct are the highest readings; MeanUtilPct the mean of readings.
	PeakMemMiB  int64
	PeakUtilPct int
	MeanUtilPct int
	// CoveredS is how many of the run's seconds the card's readings cover.
	CoveredS int64
}

// Run is a task's ended run: its spec, its cards' measurements and how long it held them.
type Run struct {
	Spec     string
	Cards    []Card
	RuntimeS int64
}

// Option is a spec a run could ask for: its card's memory and its price per card-hour
// (fen). A spec without a price (0) is never advised instead of another.
type Option struct {
	Spec    string
	MemMiB  int64
	RateFen int64
}

// Kind says what the advice is.
type Kind string

// The kinds of advice.
const (
	KindNone         Kind = ""              // too little evidence
	KindRight        Kind = "right"         // sized right: keep the spec and count
	KindFewer        Kind = "fewer"         // ask for fewer cards of the same spec
	KindSmaller      Kind = "smaller"       // ask for another, cheaper spec
	KindSmallerFewer Kind = "smaller-fewer" // both
	KindUnused       Kind = "unused"        // no card was used: find why before asking again
)

// Advice is what the next run should ask for and why, in numbers the pages word through the
// catalogs.
type Advice struct {
	Kind Kind `json:"kind"`
	// Spec and GPUs are what to ask for next time; none for KindUnused.
	Spec string `json:"spec,omitempty"`
	GPUs int    `json:"gpus,omitempty"`
	// From are what the run had.
	FromSpec string `json:"from_spec,omitempty"`
	FromGPUs int    `json:"from_gpus,omitempty"`
	// IdleCards never went above IdleUtilPct.
	IdleCards int `json:"idle_cards,omitempty"`
	// PeakMemMiB is the highest memory on any busy card; CardMemMiB the run's card's memory.
	PeakMemMiB int64 `json:"peak_mem_mib,omitempty"`
	CardMemMiB int64 `json:"card_mem_mib,omitempty"`
	// CostPct is the advised run's cost per hour against the run's, in percent (100 = same).
	CostPct int `json:"cost_pct,omitempty"`
	// SavingFenPerHour is what the advice saves per hour of the run at current prices.
	SavingFenPerHour int64 `json:"saving_fen_per_hour,omitempty"`
	// Slower is set when the run kept its cards busy, so a smaller card may take longer.
	Slower bool `json:"slower,omitempty"`
	// TrialID is the finished trial whose figures the advice is (AdviseTried): CostPct and
	// SavingFenPerHour are then per unit of output, and TimePct is how long the same output
	// takes as advised against as the run ran, in percent.
	TrialID int64 `json:"trial_id,omitempty"`
	TimePct int   `json:"time_pct,omitempty"`
}

// Advise is the advice for the next run of r, given the specs it could ask for (options
// must include r's own spec for costs to be known). It is pure.
func Advise(r Run, options []Option) Advice {
	if !enough(r) {
		return Advice{}
	}
	cur, ok := find(options, r.Spec)
	a := Advice{Kind: KindRight, Spec: r.Spec, GPUs: len(r.Cards), FromSpec: r.Spec, FromGPUs: len(r.Cards), CostPct: percentWhole}
	if ok {
		a.CardMemMiB = cur.MemMiB
	}
	var busyUtil, busy int
	for _, c := range r.Cards {
		if c.PeakUtilPct <= IdleUtilPct {
			a.IdleCards++
			continue
		}
		busy++
		busyUtil += c.MeanUtilPct
		a.PeakMemMiB = max(a.PeakMemMiB, c.PeakMemMiB)
	}
	if busy == 0 {
		// Every card idle: "the card count is right" would contradict it, and a spec sized
		// to a peak of nothing advises any card at all.
		a.Kind, a.Spec, a.GPUs, a.CostPct = KindUnused, "", 0, 0
		if ok {
			a.SavingFenPerHour = cur.RateFen * int64(a.FromGPUs)
		}
		return a
	}
	a.GPUs = busy
	need := a.PeakMemMiB + a.PeakMemMiB*HeadroomPct/percentWhole
	if ok && cur.RateFen > 0 {
		best := cur
		for _, o := range options {
			if o.RateFen > 0 && o.MemMiB >= need && o.RateFen < best.RateFen {
				best = o
			}
		}
		a.Spec = best.Spec
		before, after := cur.RateFen*int64(a.FromGPUs), best.RateFen*int64(a.GPUs)
		a.CostPct = int(after * percentWhole / before)
		a.SavingFenPerHour = before - after
	}
	smaller, fewer := a.Spec != r.Spec, a.GPUs < a.FromGPUs
	switch {
	case smaller && fewer:
		a.Kind = KindSmallerFewer
	case smaller:
		a.Kind = KindSmaller
	case fewer:
		a.Kind = KindFewer
	}
	a.Slower = smaller && busy > 0 && busyUtil/busy >= BusyUtilPct
	return a
}

// enough reports whether r is evidence enough for advice: long enough, with readings over
// at least MinCoverage of its cards' time.
func enough(r Run) bool {
	if r.RuntimeS < MinRuntimeS || len(r.Cards) == 0 {
		return false
	}
	var covered int64
	for _, c := range r.Cards {
		covered += min(c.CoveredS, r.RuntimeS)
	}
	return covered*percentWhole >= int64(len(r.Cards))*r.RuntimeS*MinCoverage
}

// find returns the option of spec.
func find(options []Option, spec string) (Option, bool) {
	i := slices.IndexFunc(options, func(o Option) bool { return strings.EqualFold(o.Spec, spec) })
	if i < 0 {
		return Option{}, false
	}
	return options[i], true
}

// Measure reduces one card's 5-minute rollups over a run to what Advise reads. Rollups
// without readings are skipped; each rollup with readings covers its bucket.
func Measure(rollups []models.GPURollup) Card {
	var c Card
	var n, utilSum int64
	for _, r := range rollups {
		if r.N <= 0 {
			continue
		}
		c.PeakMemMiB = max(c.PeakMemMiB, r.MemMax)
		c.PeakUtilPct = max(c.PeakUtilPct, r.UtilMax)
		n += r.N
		utilSum += r.UtilSum
		c.CoveredS += models.Rollup5m
	}
	if n > 0 {
		c.MeanUtilPct = int(utilSum / n)
	}
	return c
}
