package handlers

import (
	"kashi/pilot"
	"kashi/views"
)

// PeriodFigures is one side of a change (a pool's settings, a price, a quota) as its page
// shows it, from the pilot's review of that period: the one mapping the three change pages
// share.
func PeriodFigures(r pilot.Review) views.PeriodFigures {
	f := views.PeriodFigures{CostFen: r.Cost.ElasticFen, HeldS: r.HeldS, Tasks: r.Tasks, MeanWaitS: r.MeanWaitS,
		P95WaitS: r.P95WaitS, IdleS: r.IdleS, UnheldS: r.UnheldS}
	if r.HeldS > 0 {
		f.EffectivePct = 100 * float64(r.EffectiveS) / float64(r.HeldS)
	}
	return f
}

// CounterFigures is a change's counterfactual as its page shows it: the one mapping the
// change pages share.
func CounterFigures(ch pilot.Change) views.CounterView {
	cf := ch.Counter
	return views.CounterView{Tasks: cf.Tasks, OldFen: cf.OldFen, NewFen: cf.NewFen, SavedFen: cf.SavedFen,
		OldIdleS: cf.OldIdleS, NewIdleS: cf.NewIdleS, OldMeanWaitS: cf.OldMeanWaitS, NewMeanWaitS: cf.NewMeanWaitS,
		Replayed: ch.Ref.Kind != pilot.KindReclaim, Stops: cf.Reclaim, OldStops: cf.OldStops, NewStops: cf.NewStops}
}
