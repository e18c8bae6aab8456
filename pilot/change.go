package pilot

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"kashi/models"
	"kashi/replay"
)

// The before/after of a pool's setting change: the period after the change against the
// period before it, as they ran (each a Review), and the period after replayed under the
// old settings and under the new with the same tasks, since the two periods' demand differs.

// ChangeWindow is the longest period on each side of a change; MinAfter is how long after a
// change its effect is first measured.
const (
	ChangeWindow = 14 * 24 * time.Hour
	MinAfter     = 24 * time.Hour
)

// ErrNoChange: the version is the pool's first (its creation), the price the spec's first,
// or the change does not exist.
var ErrNoChange = errors.New("pilot: no such change")

// The kinds of change. A pool's idle-reclaim policy is one of its settings, so a change of
// it is a KindPool change; a project's override of it is a KindReclaim change.
const (
	// KindPool is a version of a pool's settings.
	KindPool = "pool"
	// KindPrice is a price of a spec from a month on (a row of the price list).
	KindPrice = "price"
	// KindQuota is a change of a project's quota (an admin's edit or an approved request).
	KindQuota = "quota"
	// KindReclaim is a change of a project's idle-reclaim override.
	KindReclaim = "reclaim"
)

// Ref names a change: a version of a pool's settings (Pool, Version), a price (ID, the
// price list's row) or a quota or reclaim change (Project, and ID, its audit log entry).
type Ref struct {
	Kind    string
	Pool    string
	Version int
	Project int64
	ID      int64
}

// PoolRef names version of the pool named pool.
func PoolRef(pool string, version int) Ref { return Ref{Kind: KindPool, Pool: pool, Version: version} }

// PriceRef names the price list's row id.
func PriceRef(id int64) Ref { return Ref{Kind: KindPrice, ID: id} }

// QuotaRef names the change of project's quota that the audit log's entry id records.
func QuotaRef(project, id int64) Ref { return Ref{Kind: KindQuota, Project: project, ID: id} }

// ChangeSource is what LoadChange reads; *models.Store implements it.
type ChangeSource interface {
	Source
	PoolConfigVersions(ctx context.Context, name string) ([]models.PoolPolicyVersion, error)
	PriceHistory(ctx context.Context) ([]models.Price, error)
	QuotaEdits(ctx context.Context, projectID int64, from, to time.Time) ([]models.QuotaEdit, error)
	ReclaimEdits(ctx context.Context, projectID int64, from, to time.Time) ([]models.ReclaimEdit, error)
}

// ChangeInput is everything ComputeChange reads.
type ChangeInput struct {
	Ref      Ref
	Pool     string
	Version  models.PoolPolicyVersion
	Old, New models.PoolConfig
	// Ready: MinAfter has passed since the change; without it Before and After are empty.
	Ready         bool
	Before, After Input
	// Price is a price change's (KindPrice), which reads no Before and After.
	Price priceInput
	// Quota is a quota change's (KindQuota): Before and After hold each of its pools' periods.
	Quota quotaInput
	// Reclaim is a reclaim change's (KindReclaim), read as a quota change's.
	Reclaim reclaimInput
}

// Change is a change's measured effect.
type Change struct {
	Ref     Ref
	Pool    string
	Version int
	At      time.Time
	By      string
	Note    string
	// Old and New are the pool's settings before and after a pool's change.
	Old, New models.PoolConfig
	// Price is a price change's rates.
	Price PriceRates
	// Quota is a quota change's project and quotas.
	Quota QuotaLimits
	// Reclaim is a reclaim change's project and overrides.
	Reclaim ReclaimLimits
	Ready   bool
	// From, To: Before is [From, At), After [At, To). A price change's Before and After
	// hold its spec's figures only (PriceSide).
	From, To      time.Time
	Before, After Review
	Counter       Counterfactual
}

// Counterfactual is the period after the change replayed with its tasks under the old
// settings and under the new: SavedFen is old − new (positive: the change saved), the idle
// card time and mean waits of each; with Reclaim (a reclaim change's, re-evaluated, not
// replayed: no waits; a pool change's of its reclaim settings, re-evaluated, then replayed)
// the tasks idle reclaim stopped under each.
type Counterfactual struct {
	Tasks                      int
	OldFen, NewFen, SavedFen   int64
	OldIdleS, NewIdleS         int64
	OldMeanWaitS, NewMeanWaitS int64
	Reclaim                    bool
	OldStops, NewStops         int
}

// IdlePct is the change in idle card time, in percent of the old (0 without idle before).
func (c Counterfactual) IdlePct() float64 {
	if c.OldIdleS == 0 {
		return 0
	}
	return 100 * float64(c.NewIdleS-c.OldIdleS) / float64(c.OldIdleS)
}

// LoadChange reads the change ref names and the periods around it as of now: as long on
// each side, at most ChangeWindow, not past the changes before and after it (of the same
// pool, or of the same price), and only as many whole hours as have passed since it by now
// (so a change's periods move once an hour, and a ChangeCache measures each once). A pool's
// first version, a spec's first price, or a change that does not exist, is ErrNoChange.
func LoadChange(ctx context.Context, src ChangeSource, ref Ref, now time.Time) (ChangeInput, error) {
	in, span, err := changeAt(ctx, src, ref, now)
	if err != nil || span < MinAfter {
		return in, err
	}
	switch ref.Kind {
	case KindPrice:
		in.Ready = true
		return in, loadPrice(ctx, src, &in, span)
	case KindQuota:
		in.Ready = true
		q := &in.Quota
		q.before, q.after, err = projectPeriods(ctx, src, q.edit.After.Spec, q.project, q.edit.At, span, now)
		return in, err
	case KindReclaim:
		in.Ready = true
		r := &in.Reclaim
		r.before, r.after, err = projectPeriods(ctx, src, "", r.project, r.edit.At, span, now)
		return in, err
	}
	pool, at := in.Pool, in.Version.At
	in.Ready = true
	if in.Before, err = Load(ctx, src, pool, "", at.Add(-span), at, now); err != nil {
		return ChangeInput{}, err
	}
	if in.After, err = Load(ctx, src, pool, "", at, at.Add(span), now); err != nil {
		return ChangeInput{}, err
	}
	in.Before.Pool.Config, in.After.Pool.Config = in.Old, in.New
	in.Before.NoFixedReplay, in.After.NoFixedReplay = true, true
	return in, nil
}

// changeAt reads the change ref names, what it changed, and the length of the periods
// LoadChange reads on each side of it as of now.
func changeAt(ctx context.Context, src ChangeSource, ref Ref, now time.Time) (ChangeInput, time.Duration, error) {
	switch ref.Kind {
	case KindPool:
		return poolChangeAt(ctx, src, ref, now)
	case KindPrice:
		return priceChangeAt(ctx, src, ref, now)
	case KindQuota:
		return quotaChangeAt(ctx, src, ref, now)
	case KindReclaim:
		return reclaimChangeAt(ctx, src, ref, now)
	}
	return ChangeInput{}, 0, ErrNoChange
}

// poolChangeAt reads a version of a pool's settings, its settings before and after, and the
// length of its periods as of now.
func poolChangeAt(ctx context.Context, src ChangeSource, ref Ref, now time.Time) (ChangeInput, time.Duration, error) {
	pool, version := ref.Pool, ref.Version
	vs, err := src.PoolConfigVersions(ctx, pool)
	if err != nil {
		return ChangeInput{}, 0, err
	}
	i := slices.IndexFunc(vs, func(v models.PoolPolicyVersion) bool { return v.Version == version })
	if i < 0 || vs[i].Before == "" || vs[i].Before == "null" {
		return ChangeInput{}, 0, ErrNoChange
	}
	in := ChangeInput{Ref: ref, Pool: pool, Version: vs[i]}
	if in.Old, in.New, err = vs[i].Settings(); err != nil {
		return ChangeInput{}, 0, fmt.Errorf("pilot: %w", err)
	}
	ats := make([]time.Time, len(vs))
	for j, v := range vs {
		ats[j] = v.At
	}
	return in, changeSpan(vs[i].At, ats, now), nil
}

// changeSpan is the length of the periods on each side of a change at at, as of now: at
// most ChangeWindow, the whole hours since it, and not past its neighbours (the times of
// the changes of the same thing, its own among them).
func changeSpan(at time.Time, neighbours []time.Time, now time.Time) time.Duration {
	span := min(ChangeWindow, now.Sub(at).Truncate(time.Hour))
	for _, t := range neighbours {
		switch {
		case t.Before(at):
			span = min(span, at.Sub(t))
		case t.After(at):
			span = min(span, t.Sub(at))
		}
	}
	return span
}

// ComputeChange measures in's change.
func ComputeChange(in ChangeInput) (Change, error) {
	switch in.Ref.Kind {
	case KindPrice:
		return computePrice(in)
	case KindQuota:
		return computeQuota(in)
	case KindReclaim:
		return computeReclaim(in)
	}
	v := in.Version
	c := Change{Ref: in.Ref, Pool: in.Pool, Version: v.Version, At: v.At, By: v.By, Note: v.Note, Old: in.Old, New: in.New, Ready: in.Ready}
	if !in.Ready {
		return c, nil
	}
	c.From, c.To = in.Before.From, in.After.To
	var err error
	if c.Before, err = Compute(in.Before); err != nil {
		return Change{}, err
	}
	if c.After, err = Compute(in.After); err != nil {
		return Change{}, err
	}
	a := in.After
	oldTasks, newTasks := a.Tasks, a.Tasks
	var cf Counterfactual
	if cf.Reclaim = reclaimChanged(in.Old, in.New); cf.Reclaim {
		idle, err := idleTasks(a)
		if err != nil {
			return Change{}, err
		}
		oldTasks, cf.OldStops = reclaimedSpans(a, idle, in.Old)
		newTasks, cf.NewStops = reclaimedSpans(a, idle, in.New)
	}
	old, n, err := ReplayElastic(oldTasks, a.From, a.To, a.Pool.Name, in.Old, a.RateFen, nil)
	if err != nil {
		return Change{}, err
	}
	cur, _, err := ReplayElastic(newTasks, a.From, a.To, a.Pool.Name, in.New, a.RateFen, nil)
	if err != nil {
		return Change{}, err
	}
	cf.Tasks, cf.OldFen, cf.NewFen, cf.SavedFen = n, old.Cost.TotalFen, cur.Cost.TotalFen, old.Cost.TotalFen-cur.Cost.TotalFen
	cf.OldIdleS, cf.NewIdleS = int64(old.IdleGPUHours), int64(cur.IdleGPUHours)
	cf.OldMeanWaitS, cf.NewMeanWaitS = int64(old.WaitS.Mean), int64(cur.WaitS.Mean)
	c.Counter = cf
	return c, nil
}

// MeasureChange measures the change ref names as of now: LoadChange, then ComputeChange.
func MeasureChange(ctx context.Context, src ChangeSource, ref Ref, now time.Time) (Change, error) {
	in, err := LoadChange(ctx, src, ref, now)
	if err != nil {
		return Change{}, err
	}
	return ComputeChange(in)
}

// ReplayElastic replays the tasks submitted in [from, to), each for the time it held its
// cards, on the pool as cfg configures it (elastic from its minimum, by the production
// scaling decisions) under the projects' quotas (none: unlimited), and returns the result
// and how many tasks it replayed.
func ReplayElastic(tasks []models.TaskSpan, from, to time.Time, pool string, cfg models.PoolConfig, rateFen int64, quotas []replay.Quota) (*replay.Result, int, error) {
	tr := trace(tasks, from, to, cfg.Spec, max(cfg.MaxNodes, 1)*cfg.GPUsPerNode)
	if len(tr.Jobs) == 0 {
		return &replay.Result{}, 0, nil
	}
	p := replay.PoolOf(pool, cfg, rateFen)
	if cfg.MaxNodes == 0 { // a static pool: its minimum, fixed
		p.Scale, p.Nodes = nil, max(cfg.MinNodes, 1)
	}
	res, err := replay.Run(tr, replay.Options{Fleet: replay.Config{Pools: []replay.Pool{p}, Quotas: quotas}})
	if err != nil {
		return nil, 0, fmt.Errorf("pilot: replay under version settings: %w", err)
	}
	return res, len(tr.Jobs), nil
}
