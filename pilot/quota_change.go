package pilot

import (
	"context"
	"slices"
	"time"

	"kashi/billing"
	"kashi/models"
	"kashi/replay"
)

// A quota change is a change of a project's quota on a spec (or on every spec), as the audit
// log records it. Its periods are a pool change's (equal on each side, up to ChangeWindow,
// cut at the project's other changes of the same quota); its figures are the project's on
// the pools of the quota's spec (every pool for a quota of every spec): each pool's review
// narrowed to the project, added up. Its counterfactual replays each of those pools' period
// after, every project's tasks, under the project's quota before the change and after it.

// QuotaLimits are a quota change's project and its quota before and after.
type QuotaLimits struct {
	Project  string
	Old, New models.Quota
}

// quotaInput is what a quota change's measure reads: the change, the project's name, and
// each pool of its spec's periods (narrowed to the project) and tasks.
type quotaInput struct {
	edit          models.QuotaEdit
	project       string
	before, after []Input
}

// quotaChangeAt reads the quota change ref names and the length of its periods as of now.
// A project's first quota on a spec is no change (ErrNoChange), as a pool's creation is not.
func quotaChangeAt(ctx context.Context, src ChangeSource, ref Ref, now time.Time) (ChangeInput, time.Duration, error) {
	es, err := src.QuotaEdits(ctx, ref.Project, time.Time{}, time.Time{})
	if err != nil {
		return ChangeInput{}, 0, err
	}
	i := slices.IndexFunc(es, func(e models.QuotaEdit) bool { return e.ID == ref.ID })
	if i < 0 || es[i].Before == nil {
		return ChangeInput{}, 0, ErrNoChange
	}
	e := es[i]
	var ats []time.Time
	for _, o := range es {
		if o.After.Spec == e.After.Spec {
			ats = append(ats, o.At)
		}
	}
	name, err := projectName(ctx, src, e.ProjectID)
	if err != nil {
		return ChangeInput{}, 0, err
	}
	qi := quotaInput{edit: e, project: name}
	return ChangeInput{Ref: ref, Quota: qi}, changeSpan(e.At, ats, now), nil
}

// projectName is the name of the project id ("" for none).
func projectName(ctx context.Context, src ChangeSource, id int64) (string, error) {
	ps, err := src.Projects(ctx)
	if err != nil {
		return "", err
	}
	if j := slices.IndexFunc(ps, func(p models.Project) bool { return p.ID == id }); j >= 0 {
		return ps[j].Name, nil
	}
	return "", nil
}

// projectPeriods reads the periods of span on each side of at of each configured pool of
// spec (every pool for ""), narrowed to project.
func projectPeriods(ctx context.Context, src ChangeSource, spec, project string, at time.Time, span time.Duration, now time.Time) (before, after []Input, err error) {
	cps, err := src.ConfiguredPools(ctx)
	if err != nil {
		return nil, nil, err
	}
	for _, p := range cps {
		if spec != "" && p.Spec != spec {
			continue
		}
		b, err := Load(ctx, src, p.Name, project, at.Add(-span), at, now)
		if err != nil {
			return nil, nil, err
		}
		a, err := Load(ctx, src, p.Name, project, at, at.Add(span), now)
		if err != nil {
			return nil, nil, err
		}
		b.NoFixedReplay, a.NoFixedReplay = true, true
		before, after = append(before, b), append(after, a)
	}
	return before, after, nil
}

// computeQuota measures a quota change: the project's figures on the quota's pools before
// and after, and each pool's period after replayed under the old quota and the new.
func computeQuota(in ChangeInput) (Change, error) {
	qi := in.Quota
	e := qi.edit
	c := Change{Ref: in.Ref, At: e.At, By: e.Actor, Ready: in.Ready, // a quota edit carries no note: its audit subject is a key, not words
		Quota: QuotaLimits{Project: qi.project, Old: *e.Before, New: e.After}}
	if !in.Ready || len(qi.after) == 0 {
		return c, nil
	}
	if err := c.projectSides(qi.before, qi.after); err != nil {
		return Change{}, err
	}
	var oldWait, newWait int64
	for _, a := range qi.after {
		oq, ok1 := replayQuota(qi.project, *e.Before, a.From)
		nq, ok2 := replayQuota(qi.project, e.After, a.From)
		if !ok1 || !ok2 {
			continue // a limit of no cards: the replay runs no task of the project
		}
		old, n, err := ReplayElastic(a.Tasks, a.From, a.To, a.Pool.Name, a.Pool.Config, a.RateFen, oq)
		if err != nil {
			return Change{}, err
		}
		cur, _, err := ReplayElastic(a.Tasks, a.From, a.To, a.Pool.Name, a.Pool.Config, a.RateFen, nq)
		if err != nil {
			return Change{}, err
		}
		cf := &c.Counter
		cf.Tasks += n
		cf.OldFen, cf.NewFen = cf.OldFen+old.Cost.TotalFen, cf.NewFen+cur.Cost.TotalFen
		cf.OldIdleS, cf.NewIdleS = cf.OldIdleS+int64(old.IdleGPUHours), cf.NewIdleS+int64(cur.IdleGPUHours)
		oldWait, newWait = oldWait+int64(old.WaitS.Mean)*int64(n), newWait+int64(cur.WaitS.Mean)*int64(n)
	}
	if cf := &c.Counter; cf.Tasks > 0 {
		cf.SavedFen = cf.OldFen - cf.NewFen
		cf.OldMeanWaitS, cf.NewMeanWaitS = oldWait/int64(cf.Tasks), newWait/int64(cf.Tasks)
	}
	return c, nil
}

// projectSides sets c's periods and its sides from a project's reviews of each period on
// several pools.
func (c *Change) projectSides(before, after []Input) error {
	c.From, c.To = before[0].From, after[0].To
	var err error
	if c.Before, err = projectSide(before); err != nil {
		return err
	}
	c.After, err = projectSide(after)
	return err
}

// projectSide adds up a project's reviews of one period on several pools: its card time,
// its tasks and their waits (the mean weighted by tasks, the p95 the largest pool's), and
// the cost of its held card time at each pool's list rate.
func projectSide(ins []Input) (Review, error) {
	var out Review
	var waits int64
	for i, in := range ins {
		r, err := Compute(in)
		if err != nil {
			return Review{}, err
		}
		if i == 0 {
			out.Project, out.From, out.To, out.Cost.RateFen = r.Project, r.From, r.To, in.RateFen
		}
		out.HeldS, out.EffectiveS, out.IdleS = out.HeldS+r.HeldS, out.EffectiveS+r.EffectiveS, out.IdleS+r.IdleS
		out.Cost.ElasticFen += billing.Amount(r.HeldS, in.RateFen)
		out.Tasks, out.Waited = out.Tasks+r.Tasks, out.Waited+r.Waited
		waits += r.MeanWaitS * int64(r.Tasks)
		out.P95WaitS, out.MaxWaitS = max(out.P95WaitS, r.P95WaitS), max(out.MaxWaitS, r.MaxWaitS)
	}
	if out.Tasks > 0 {
		out.MeanWaitS = waits / int64(out.Tasks)
	}
	return out, nil
}

// replayQuota is q, the quota of the project named project, as the replay enforces it from
// at: its limit then (an override in force counts), its guarantee (per spec only) and its
// overflow; false when the limit is no card, which the replay cannot run.
func replayQuota(project string, q models.Quota, at time.Time) ([]replay.Quota, bool) {
	rq := replay.Quota{Project: project, Spec: q.Spec, MaxGPUs: q.Limit(at), Overflow: q.OverflowAllowed}
	if q.Spec != "" {
		rq.Guaranteed = min(q.GuaranteedGPUs, rq.MaxGPUs)
	}
	return []replay.Quota{rq}, rq.MaxGPUs >= 1
}
