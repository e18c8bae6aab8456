package rightsize

import (
	"cmp"
	"slices"
)

// Merge is the run that stands for a template's recent runs, the latest first, so that
// advice for its next run fits every one of them: of the runs with the latest's spec and card
// count that are evidence enough (see Advise), each card is the highest reading of the
// runs' cards of the same rank by peak utilization (the busiest with the busiest), and the
// runtime the longest. n is how many runs it merged; with none the merged run gives no
// advice.
func Merge(runs []Run) (merged Run, n int) {
	if len(runs) == 0 {
		return Run{}, 0
	}
	spec, cards := runs[0].Spec, len(runs[0].Cards)
	merged = Run{Spec: spec, Cards: make([]Card, cards)}
	for _, r := range runs {
		if r.Spec != spec || len(r.Cards) != cards || !enough(r) {
			continue
		}
		ranked := slices.Clone(r.Cards)
		slices.SortStableFunc(ranked, func(a, b Card) int { return cmp.Compare(b.PeakUtilPct, a.PeakUtilPct) })
		for i, c := range ranked {
			m := &merged.Cards[i]
			m.PeakMemMiB, m.PeakUtilPct = max(m.PeakMemMiB, c.PeakMemMiB), max(m.PeakUtilPct, c.PeakUtilPct)
			m.MeanUtilPct = max(m.MeanUtilPct, c.MeanUtilPct)
		}
		merged.RuntimeS = max(merged.RuntimeS, r.RuntimeS)
		n++
	}
	if n == 0 {
		return Run{}, 0
	}
	for i := range merged.Cards {
		merged.Cards[i].CoveredS = merged.RuntimeS // each card's readings came from runs with evidence
	}
	return merged, n
}
