package bills

import (
	"context"
	"time"

	"kashi/handlers"
)

// openAt picks the moment whose period (month or week) a page opens on when none is asked
// for: the latest period that has ended, [from, to), when the caller's projects held a card
// in it; else the period of the latest second held before it; else the running period when
// a card is held in it. fellBack says the page shows another period than the one that
// ended last, and should say so; when no card was ever held it stays on that period.
func (h *Handler) openAt(ctx context.Context, p *handlers.Principal, from, to, now time.Time) (at time.Time, fellBack bool, err error) {
	var ids []int64
	if !p.SeesAllBills() {
		ids = make([]int64, 0, len(p.Projects))
		for id := range p.Projects {
			ids = append(ids, id)
		}
	}
	last, ok, err := h.store.LastHeldBefore(ctx, ids, to)
	switch {
	case err != nil:
		return time.Time{}, false, err
	case ok && last.After(from):
		return from, false, nil
	case ok:
		return last.Add(-time.Second), true, nil
	}
	if _, ok, err = h.store.LastHeldBefore(ctx, ids, now); err != nil || !ok {
		return from, false, err
	}
	return now, true, nil
}
