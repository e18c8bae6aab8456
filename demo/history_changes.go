package demo

import (
	"context"
	"fmt"
	"time"

	"kashi/models"
	"kashi/replay"
)

// The settings changed in the demo's past month, so that each kind of change has a page with
// something to show: the admin made the RTX 4090 pool release its unneeded machines sooner
// in the middle of the month (poolChange, two versions saved by Seed at their instants, which
// FillHistory replays as they came), vision's lead tightened its idle reclaim the same day
// (recorded as SetReclaimOverride records it, at that instant), and the price list cut the
// RTX 4090's rate from the month on (priceCuts, set by Seed).

// poolChange is the RTX 4090 pool's change on the 15th of the past month (in the demo's
// zone): until then the pool kept 4 machines at least and released one after 2 unneeded
// hours, since the demo pool's 3 and 10 minutes. The pool's first version holds from the
// month before the past month.
var poolChange = struct {
	pool, by, note string
	day            int
	oldMinNodes    int
	oldUnneededS   int64
}{"rtx4090", "admin", "Keep 3 machines, not 4, and release unneeded ones after 10 minutes, not 2 hours", 15, 4, 7200}

// savePool saves the demo pool name as cfg: at now, or, for poolChange's pool, with its old
// setting from the month before the past month and cfg from the change.
func savePool(ctx context.Context, s Seeder, name string, cfg models.PoolConfig, now time.Time) error {
	if name != poolChange.pool {
		_, err := s.SavePoolConfig(ctx, name, cfg, "demo", "demo pool", now)
		return err
	}
	l := now.In(shanghai)
	old := cfg
	old.MinNodes, old.UnneededS = poolChange.oldMinNodes, poolChange.oldUnneededS
	first := time.Date(l.Year(), l.Month()-2, 1, 0, 0, 0, 0, shanghai)
	if _, err := s.SavePoolConfig(ctx, name, old, "demo", "demo pool", first); err != nil {
		return err
	}
	at := time.Date(l.Year(), l.Month()-1, poolChange.day, 0, 0, 0, 0, shanghai)
	_, err := s.SavePoolConfig(ctx, name, cfg, poolChange.by, poolChange.note, at)
	return err
}

// pastPools are the configured pools as the replay of [from, to) runs them: each with the
// settings of its version in force at from (its first, for a pool configured later) and its
// versions within the period as the replay's, so the past's machines come and go as the
// settings of their day said.
func pastPools(ctx context.Context, st HistoryStore, cps []models.ConfiguredPool, from, to time.Time) ([]replay.Pool, error) {
	out := make([]replay.Pool, 0, len(cps))
	for _, cp := range cps {
		vs, err := st.PoolConfigVersions(ctx, cp.Name)
		if err != nil {
			return nil, err
		}
		p := replay.PoolOf(cp.Name, cp.Config, 0)
		for i := len(vs) - 1; i >= 0; i-- { // oldest first
			_, cfg, err := vs[i].Settings()
			if err != nil {
				return nil, fmt.Errorf("demo: pool %s: %w", cp.Name, err)
			}
			switch {
			case i == len(vs)-1 || !vs[i].At.After(from):
				p = replay.PoolOf(cp.Name, cfg, 0)
			case vs[i].At.Before(to):
				p.Versions = append(p.Versions, replay.Version{From: vs[i].At, Scale: *replay.PoolOf(cp.Name, cfg, 0).Scale})
			}
		}
		out = append(out, p)
	}
	return out, nil
}

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
