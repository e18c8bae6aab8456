package demo

import (
	"context"
	"fmt"
	"time"

	"kashi/models"
)

// The settings changed in the demo's past month, so that each kind of change has a page with
// something to show: vision's lead tightened its idle reclaim in the middle of the month
// (recorded as SetReclaimOverride records it, at that instant), and the price list cut the
// RTX 4090's rate from the month on (priceCuts, set by Seed).

// reclaimChange is vision's idle-reclaim override from the middle of the past month: a
// notice after 15 idle minutes, the stop 10 minutes later (the pool's defaults: 30 and 30).
var reclaimChange = struct {
	project, by string
	day         int
	override    models.ReclaimOverride
}{"vision", "lead", 15, models.ReclaimOverride{IdleS: 900, GraceS: 600}}

// priceCuts are the price list's rows from the past month on: a cheaper RTX 4090 (from 700
// and 1,000 fen a card-hour the month before, prices).
var priceCuts = []models.Price{{Spec: "RTX4090-24G", RateFen: 600, OverflowRateFen: 900}}

// pastReclaim is when, from the past month starting at from, each project's idle tasks are
// reclaimed: the pools' default reclaim, and vision's override for its tasks submitted from
// the middle of the month.
type pastReclaim struct {
	at            time.Time
	before, after time.Duration
}

func newPastReclaim(from time.Time) pastReclaim {
	def := models.PoolConfig{}.WithDefaults()
	o := reclaimChange.override
	sec := func(s int64) time.Duration { return time.Duration(s) * time.Second }
	return pastReclaim{at: from.AddDate(0, 0, reclaimChange.day-1),
		before: sec(def.ReclaimSetupGraceS + def.ReclaimIdleS + def.ReclaimGraceS),
		after:  sec(def.ReclaimSetupGraceS + o.IdleS + o.GraceS)}
}

// limit is how long after its start a task of project submitted at submit is reclaimed
// when its cards stay idle from its start.
func (r pastReclaim) limit(project string, submit time.Time) time.Duration {
	if project == reclaimChange.project && !submit.Before(r.at) {
		return r.after
	}
	return r.before
}

// recordReclaimChange records vision's override at the middle of the past month.
func recordReclaimChange(ctx context.Context, st HistoryStore, r pastReclaim) error {
	ps, err := st.Projects(ctx)
	if err != nil {
		return err
	}
	for _, p := range ps {
		if p.Name == reclaimChange.project {
			if err := st.SetReclaimOverride(ctx, reclaimChange.by, p.ID, reclaimChange.override, r.at); err != nil {
				return fmt.Errorf("demo: %s's idle reclaim: %w", p.Name, err)
			}
		}
	}
	return nil
}
