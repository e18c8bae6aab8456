package rightsize

import (
	"math/big"
	"slices"
)

// What a trial (小规模验证再放大) measures and proposes. A trial runs a task at small sizes on
// one or several specs for a bounded time; each run reports its output (KASHI_OUTPUT) and
// its cards their readings. Per run, Trial reports:
//   - its throughput: the output it reported over its whole run, setup included, per hour;
//   - its scaling efficiency against its spec's smallest size: output per card at this size
//     over output per card at the smallest, in percent (100 = linear);
//   - what it cost at its spec's price, and that per million units of output, in fen;
//   - its cards' peak memory and mean utilization, and whether that mean is at least
//     BusyUtilPct: the data reading kept the cards busy, or they waited on it.
//
// Once every run has ended, it proposes the full run: for each spec, the full size asked
// (or the largest tried) when the spec scaled to its largest tried size at MinEfficiencyPct
// or better, else the largest size that did; the output per hour there, projected from the
// largest size that scaled, losing its efficiency once more past it; the spec whose
// projected cost per unit is lowest (the fastest when no spec has a price); and, when the
// full run's output is known, its card-hours and cost.

// MinEfficiencyPct is the scaling efficiency below which more cards are not worth it.
const MinEfficiencyPct = 70

// TrialRun is one run of a trial as it was measured: its spec and cards, how long it ran
// (so far, while it runs), the output it reported, its cards' readings and the price per
// card-hour of its spec (fen; 0 when the spec has none).
type TrialRun struct {
	TaskID   int64
	Spec     string
	GPUs     int
	State    string
	Ended    bool
	RuntimeS int64
	Units    int64
	Unit     string
	Cards    []Card
	RateFen  int64
}

// TrialRow is a run with its figures.
type TrialRow struct {
	TrialRun
	// Measured is set when the run reported output over a positive runtime.
	Measured     bool
	UnitsPerHour int64
	// EfficiencyPct is against the spec's smallest measured size; 0 for that size itself or
	// when it was not measured.
	EfficiencyPct int
	// CostFen is what its card time cost; CostPerMFen that per million units (nil when
	// unmeasured or unpriced).
	CostFen     int64
	CostPerMFen *int64
	PeakMemMiB  int64
	MeanUtilPct int
	// Busy is set when the cards' mean utilization was at least BusyUtilPct; HasReadings
	// when any card reported.
	Busy, HasReadings bool
}

// Proposal is the full run a trial proposes.
type Proposal struct {
	Spec string
	GPUs int
	// UnitsPerHour is the projected output per hour at GPUs; Projected is set when GPUs
	// was not tried.
	UnitsPerHour int64
	Projected    bool
	// Scales is false when the spec's efficiency fell below MinEfficiencyPct: GPUs is then
	// the largest size that held it.
	Scales bool
	// CostPerMFen is the projected cost per million units (nil without a price).
	CostPerMFen *int64
	// CardS and CostFen are the full run's card-seconds and cost for its output; 0 when the
	// output is not known.
	CardS   int64
	CostFen int64
}

// TrialReport is a trial's figures: its runs in the order given, and its proposal once every
// run has ended (nil before, or when no run measured any output).
type TrialReport struct {
	Rows     []TrialRow
	Done     bool
	Proposal *Proposal
}

// Trial reports the runs and proposes the full run of work units (0 when unknown) on
// fullGPUs cards (0 for the largest tried). It is pure.
func Trial(runs []TrialRun, work int64, fullGPUs int) TrialReport {
	rep := TrialReport{Done: len(runs) > 0}
	smallest := map[string]TrialRow{}
	for _, r := range runs {
		row := measure(r)
		rep.Done = rep.Done && r.Ended
		if s, ok := smallest[r.Spec]; row.Measured && (!ok || r.GPUs < s.GPUs) {
			smallest[r.Spec] = row
		}
		rep.Rows = append(rep.Rows, row)
	}
	for i, row := range rep.Rows {
		if s, ok := smallest[row.Spec]; ok && row.Measured && row.GPUs > s.GPUs {
			rep.Rows[i].EfficiencyPct = efficiency(s, row)
		}
	}
	if rep.Done {
		rep.Proposal = propose(rep.Rows, smallest, work, fullGPUs)
	}
	return rep
}

// measure is a run's own figures.
func measure(r TrialRun) TrialRow {
	row := TrialRow{TrialRun: r}
	cardS := r.RuntimeS * int64(r.GPUs)
	row.CostFen = mulDiv(n(cardS, r.RateFen), n(3600))
	if r.Units > 0 && r.RuntimeS > 0 {
		row.Measured = true
		row.UnitsPerHour = mulDiv(n(r.Units, 3600), n(r.RuntimeS))
		if r.RateFen > 0 {
			c := mulDiv(n(cardS, r.RateFen, 1_000_000), n(3600, r.Units))
			row.CostPerMFen = &c
		}
	}
	var util, read int
	for _, c := range r.Cards {
		if c.CoveredS == 0 {
			continue
		}
		row.PeakMemMiB = max(row.PeakMemMiB, c.PeakMemMiB)
		util += c.MeanUtilPct
		read++
	}
	if read > 0 {
		row.HasReadings, row.MeanUtilPct = true, util/read
		row.Busy = row.MeanUtilPct >= BusyUtilPct
	}
	return row
}

// efficiency is row's output per card against small's, in percent.
func efficiency(small, row TrialRow) int {
	if small.UnitsPerHour == 0 {
		return 0
	}
	return int(mulDiv(n(row.UnitsPerHour, int64(small.GPUs), 100), n(small.UnitsPerHour, int64(row.GPUs))))
}

// propose picks the full run from the measured rows, as the package doc says.
func propose(rows []TrialRow, smallest map[string]TrialRow, work int64, fullGPUs int) *Proposal {
	var best *Proposal
	for _, spec := range specsOf(rows) {
		p, ok := proposeSpec(rows, smallest[spec], spec, work, fullGPUs)
		if !ok {
			continue
		}
		if best == nil || better(p, *best) {
			best = &p
		}
	}
	return best
}

// specsOf is the specs of rows, in order of first appearance.
func specsOf(rows []TrialRow) []string {
	var out []string
	for _, r := range rows {
		if !slices.Contains(out, r.Spec) {
			out = append(out, r.Spec)
		}
	}
	return out
}

// better reports whether p is a better full run than q: cheaper per unit, or, where either
// has no price, faster.
func better(p, q Proposal) bool {
	if p.CostPerMFen != nil && q.CostPerMFen != nil && *p.CostPerMFen != *q.CostPerMFen {
		return *p.CostPerMFen < *q.CostPerMFen
	}
	if (p.CostPerMFen == nil) != (q.CostPerMFen == nil) {
		return p.CostPerMFen != nil
	}
	return p.UnitsPerHour > q.UnitsPerHour
}

// proposeSpec is the full run on spec, from its measured rows; ok is false without any.
func proposeSpec(rows []TrialRow, small TrialRow, spec string, work int64, fullGPUs int) (Proposal, bool) {
	measured, base, scales := scaled(rows, spec)
	if len(measured) == 0 {
		return Proposal{}, false
	}
	largest := measured[len(measured)-1]
	p := Proposal{Spec: spec, Scales: scales, GPUs: base.GPUs}
	if scales {
		p.GPUs = largest.GPUs
		if fullGPUs > 0 {
			p.GPUs = fullGPUs
		}
	}
	p.UnitsPerHour, p.Projected = unitsAt(measured, small, base, p.GPUs)
	if p.UnitsPerHour <= 0 {
		return Proposal{}, false
	}
	if rate := base.RateFen; rate > 0 {
		c := mulDiv(n(rate, int64(p.GPUs), 1_000_000), n(p.UnitsPerHour))
		p.CostPerMFen = &c
		if work > 0 {
			p.CostFen = mulDiv(n(work, rate, int64(p.GPUs)), n(p.UnitsPerHour))
		}
	}
	if work > 0 {
		p.CardS = mulDiv(n(work, 3600, int64(p.GPUs)), n(p.UnitsPerHour))
	}
	return p, true
}

// scaled is spec's measured rows by size, the largest size that scaled (every larger one
// tried did not, or none was tried) and whether every size tried scaled.
func scaled(rows []TrialRow, spec string) (measured []TrialRow, base TrialRow, scales bool) {
	for _, r := range rows {
		if r.Spec == spec && r.Measured {
			measured = append(measured, r)
		}
	}
	if len(measured) == 0 {
		return nil, TrialRow{}, false
	}
	slices.SortFunc(measured, func(a, b TrialRow) int { return a.GPUs - b.GPUs })
	base, scales = measured[0], true
	for _, r := range measured[1:] {
		if r.EfficiencyPct < MinEfficiencyPct {
			scales = false
			break
		}
		base = r
	}
	return measured, base, scales
}

// unitsAt is the output per hour on gpus cards of the spec whose measured rows (by size)
// are measured, small the smallest and base the largest that scaled: as measured at that
// size, else projected (projected set).
func unitsAt(measured []TrialRow, small, base TrialRow, gpus int) (perHour int64, projected bool) {
	switch i := slices.IndexFunc(measured, func(r TrialRow) bool { return r.GPUs == gpus }); {
	case i >= 0:
		return measured[i].UnitsPerHour, false
	case gpus > base.GPUs:
		// Past the largest size that scaled: per card as there, losing its efficiency once more.
		eff := int64(100)
		if base.GPUs > small.GPUs && base.EfficiencyPct > 0 {
			eff = int64(base.EfficiencyPct)
		}
		return mulDiv(n(base.UnitsPerHour, int64(gpus), eff), n(int64(base.GPUs), 100)), true
	default:
		// Between sizes tried: per card as at the next larger size.
		j := slices.IndexFunc(measured, func(r TrialRow) bool { return r.GPUs > gpus })
		return mulDiv(n(measured[j].UnitsPerHour, int64(gpus)), n(int64(measured[j].GPUs))), true
	}
}

// n is a list of factors.
func n(factors ...int64) []int64 { return factors }

// mulDiv is the product of num over the product of den, rounded half up, in exact
// arithmetic, capped at the largest int64; 0 when den's product is not positive.
func mulDiv(num, den []int64) int64 {
	prod := func(fs []int64) *big.Int {
		p := big.NewInt(1)
		for _, f := range fs {
			p.Mul(p, big.NewInt(f))
		}
		return p
	}
	d := prod(den)
	if d.Sign() <= 0 {
		return 0
	}
	q := prod(num)
	q.Add(q.Mul(q, big.NewInt(2)), d)
	q.Quo(q, d.Mul(d, big.NewInt(2)))
	if !q.IsInt64() {
		return 1<<63 - 1
	}
	return q.Int64()
}
