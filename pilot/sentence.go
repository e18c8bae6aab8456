package pilot

import (
	"fmt"
	"time"

	"kashi/phrase"
)

// Sentence says in l what the change saved: "This change saved ¥N (−x % idle hours, waits
// +y)", from the period after it replayed under the old settings and the new (a price's:
// its month billed ¥N less or more than at the old rates; a reclaim override's: the tasks
// reclaim stopped under each instead of the waits); before a day
// has passed, when it will be measured, in loc. The version list, the change's page and the
// weekly report all say it through here.
func (c Change) Sentence(l phrase.Locale, loc *time.Location) string {
	if !c.Ready {
		return l.T("change.not_yet", c.ReadyAt().In(loc).Format("2006-01-02 15:04"))
	}
	cf := c.Counter
	if c.Ref.Kind == KindPrice { // the same work at another rate: only the cost moves
		if cf.SavedFen >= 0 {
			return l.T("change.price_saved", phrase.Yuan(cf.SavedFen))
		}
		return l.T("change.price_cost_more", phrase.Yuan(-cf.SavedFen))
	}
	idle := fmt.Sprintf("%+.0f %%", cf.IdlePct())
	if c.Ref.Kind == KindReclaim { // re-evaluated, not replayed: the stops move, not the waits
		if cf.SavedFen >= 0 {
			return l.T("change.reclaim_saved", phrase.Yuan(cf.SavedFen), idle, cf.OldStops, cf.NewStops)
		}
		return l.T("change.reclaim_cost_more", phrase.Yuan(-cf.SavedFen), idle, cf.OldStops, cf.NewStops)
	}
	wait := signedDuration(l, time.Duration(cf.NewMeanWaitS-cf.OldMeanWaitS)*time.Second)
	if cf.SavedFen >= 0 {
		return l.T("change.saved", phrase.Yuan(cf.SavedFen), idle, wait)
	}
	return l.T("change.cost_more", phrase.Yuan(-cf.SavedFen), idle, wait)
}

// ReadyAt is when the change's effect is first measured: MinAfter after it.
func (c Change) ReadyAt() time.Time { return c.At.Add(MinAfter) }

// signedDuration writes d with its sign: "+1m", "−30s".
func signedDuration(l phrase.Locale, d time.Duration) string {
	if d < 0 {
		return "−" + l.Duration(-d)
	}
	return "+" + l.Duration(d)
}
