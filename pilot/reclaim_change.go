package pilot

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	"kashi/billing"
	"kashi/models"
	"kashi/scaler"
)

// A reclaim change is a change of a project's idle-reclaim override, as the audit log
// records it (project-reclaim). Its periods and its figures are a quota change's for a quota
// of every spec: the project's on every configured pool, cut at its other reclaim changes.
//
// Its counterfactual is not a replay: the replay runs tasks for the time they held their
// cards and knows nothing of what the cards did, so it cannot see idle cards. Instead each
// of the project's tasks that held cards in the period after is re-evaluated from what its
// cards did: the stretches all its cards were idle (5-minute rollups whose every reading was
// under the idle threshold) are handed to the production rule (scaler.IdleTask.ReclaimAt)
// under the policy before the change and under the new one, nobody answering the notice,
// and the task stops at the first stretch that lasts past its reclaim. A task that idle
// reclaim did stop is taken to have stayed idle after it, until the other policy (or its
// maximum runtime, or the period's end) would stop it. Each side is the project's held
// card time up to those stops at the pool's list rate, its idle card time, and how many
// tasks reclaim stopped; the waits others would have had on the cards freed are not
// modelled.

// ReclaimLimits are a reclaim change's project and its override before and after.
type ReclaimLimits struct {
	Project  string
	Old, New models.ReclaimOverride
}

// reclaimInput is what a reclaim change's measure reads: the change, the project's name, and
// each configured pool's periods narrowed to the project.
type reclaimInput struct {
	edit          models.ReclaimEdit
	project       string
	before, after []Input
}

// ReclaimRef names the change of project's reclaim override that the audit log's entry id
// records.
func ReclaimRef(project, id int64) Ref { return Ref{Kind: KindReclaim, Project: project, ID: id} }

// reclaimChangeAt reads the reclaim change ref names and the length of its periods as of now.
func reclaimChangeAt(ctx context.Context, src ChangeSource, ref Ref, now time.Time) (ChangeInput, time.Duration, error) {
	es, err := src.ReclaimEdits(ctx, ref.Project, time.Time{}, time.Time{})
	if err != nil {
		return ChangeInput{}, 0, err
	}
	i := slices.IndexFunc(es, func(e models.ReclaimEdit) bool { return e.ID == ref.ID })
	if i < 0 {
		return ChangeInput{}, 0, ErrNoChange
	}
	ats := make([]time.Time, len(es))
	for j, e := range es {
		ats[j] = e.At
	}
	name, err := projectName(ctx, src, ref.Project)
	if err != nil {
		return ChangeInput{}, 0, err
	}
	return ChangeInput{Ref: ref, Reclaim: reclaimInput{edit: es[i], project: name}}, changeSpan(es[i].At, ats, now), nil
}

// computeReclaim measures a reclaim change: the project's figures before and after, and its
// tasks of the period after stopped where idle reclaim would under the old override and the
// new.
func computeReclaim(in ChangeInput) (Change, error) {
	ri := in.Reclaim
	e := ri.edit
	c := Change{Ref: in.Ref, At: e.At, By: e.Actor, Ready: in.Ready, Reclaim: ReclaimLimits{Project: ri.project, Old: e.Before, New: e.After}}
	if !in.Ready || len(ri.after) == 0 {
		return c, nil
	}
	if err := c.projectSides(ri.before, ri.after); err != nil {
		return Change{}, err
	}
	cf := &c.Counter
	for _, a := range ri.after {
		old, cur, err := reclaimRuns(a, e.Before, e.After)
		if err != nil {
			return Change{}, err
		}
		cf.Tasks += old.tasks
		cf.OldFen, cf.NewFen = cf.OldFen+billing.Amount(old.heldS, a.RateFen), cf.NewFen+billing.Amount(cur.heldS, a.RateFen)
		cf.OldIdleS, cf.NewIdleS = cf.OldIdleS+old.idleS, cf.NewIdleS+cur.idleS
		cf.OldStops, cf.NewStops = cf.OldStops+old.stops, cf.NewStops+cur.stops
	}
	cf.SavedFen = cf.OldFen - cf.NewFen
	cf.Reclaim = true
	return c, nil
}

// reclaimRun is one policy's side of a pool's period: the project's tasks that held cards
// in it, how many idle reclaim stopped, their held and idle card time in the period.
type reclaimRun struct {
	tasks, stops int
	heldS, idleS int64
}

// idleTask is a task of the project as its cards held on the pool: from its first card's
// start to its last's end, its cards, its idle stretches, and whether idle reclaim stopped
// it.
type idleTask struct {
	id, project int64
	start, end  int64
	maxEnd      int64 // its start plus its maximum runtime; 0 without one
	gpus        map[int64]bool
	stretches   [][2]int64
	reclaimed   bool
}

// reclaimRuns re-evaluates in's period (a pool's, narrowed to its project) under the pool's
// settings with the project's override old and with new.
func reclaimRuns(in Input, old, new models.ReclaimOverride) (reclaimRun, reclaimRun, error) {
	tasks, err := idleTasks(in)
	if err != nil {
		return reclaimRun{}, reclaimRun{}, err
	}
	from, to := in.From.Unix(), in.To.Unix()
	cfg := in.Pool.Config
	run := func(o models.ReclaimOverride) reclaimRun {
		pol := scaler.ReclaimOf(models.ReclaimSettings{Pool: &cfg, Override: o})
		var r reclaimRun
		for _, t := range tasks {
			stop, stopped := t.stopUnder(pol, to)
			n := int64(len(t.gpus))
			r.tasks++
			if stopped {
				r.stops++
			}
			r.heldS += n * max(0, min(stop, to)-max(t.start, from))
			for i, s := range t.stretches {
				b := s[1]
				if i == len(t.stretches)-1 && t.reclaimed && b == t.end {
					b = max(b, stop) // stayed idle past its recorded stop
				}
				r.idleS += n * max(0, min(b, stop, to)-max(s[0], from))
			}
		}
		return r
	}
	return run(old), run(new), nil
}

// stopUnder is when t ends under pol, and whether idle reclaim stops it: at the first idle
// stretch that outlasts its reclaim time; past its recorded end when reclaim stopped it (its
// last stretch going on, until pol's stop, its maximum runtime or to); else its recorded end.
func (t idleTask) stopUnder(pol scaler.ReclaimPolicy, to int64) (int64, bool) {
	limit := to
	if t.maxEnd > 0 {
		limit = min(limit, t.maxEnd)
	}
	for i, s := range t.stretches {
		since := time.Unix(s[0], 0)
		at := scaler.IdleTask{TaskID: t.id, StartedAt: time.Unix(t.start, 0), IdleSince: since, Policy: pol}.ReclaimAt(since)
		last := t.reclaimed && i == len(t.stretches)-1 && s[1] == t.end
		switch {
		case !at.IsZero() && at.Unix() < s[1]:
			return at.Unix(), true
		case last && at.IsZero(): // reclaim off: it would have held on
			return max(t.end, limit), false
		case last:
			return max(t.end, min(at.Unix(), limit)), at.Unix() <= limit
		}
	}
	return t.end, false
}

// idleTasks are the tasks of in's project (every project's, without one) that held cards of
// in's pool in its period, each with the stretches all its cards were idle (by the cards'
// 5-minute rollups). A trial's run and a service's replicas are left out: idle reclaim does
// not stop them.
func idleTasks(in Input) ([]*idleTask, error) {
	w := in.Window
	if in.Project != "" {
		w = onlyProject(w, in.Project)
	}
	from, to, asOf := in.From.Unix(), in.To.Unix(), in.AsOf.Unix()
	onPool := map[int64]bool{}
	for _, n := range poolNodes(w.Nodes, in.Pool.Name, from, to) {
		onPool[n.id] = true
	}
	ledger := map[int64]models.LedgerTask{}
	for _, t := range w.Tasks {
		ledger[t.ID] = t
	}
	maxRun := map[int64]int64{}
	for _, t := range in.Tasks {
		maxRun[t.ID] = t.MaxRuntimeS
	}
	byID := map[int64]*idleTask{}
	gpus := map[int64]bool{}
	for _, a := range w.Allocations {
		lt := ledger[a.TaskID]
		if w.Only != nil && !w.Only[a.ProjectID] || !onPool[a.NodeID] || a.Trial || lt.ServiceID != 0 {
			continue
		}
		end := a.End
		if end == 0 {
			end = asOf
		}
		if end <= from || a.Start >= to {
			continue
		}
		t := byID[a.TaskID]
		if t == nil {
			t = &idleTask{id: a.TaskID, project: a.ProjectID, start: a.Start, end: end, gpus: map[int64]bool{}, reclaimed: lt.Ending == models.EndReclaimed}
			byID[a.TaskID] = t
		}
		t.start, t.end = min(t.start, a.Start), max(t.end, end)
		t.gpus[a.GPUID], gpus[a.GPUID] = true, true
	}
	idle, err := idleBuckets(w.Readings, gpus)
	if err != nil {
		return nil, err
	}
	out := make([]*idleTask, 0, len(byID))
	for _, t := range byID {
		if r := maxRun[t.id]; r > 0 {
			t.maxEnd = t.start + r
		}
		t.stretches = t.idleStretches(idle)
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b *idleTask) int { return cmp.Compare(a.id, b.id) })
	return out, nil
}

// idleBuckets reads, for each of gpus, the starts of its 5-minute buckets whose every reading
// was idle, in order.
func idleBuckets(rd billing.Readings, gpus map[int64]bool) (map[int64][]int64, error) {
	out := map[int64][]int64{}
	if rd == nil {
		return out, nil
	}
	var mu sync.Mutex
	err := rd(func(gpu int64, rs []models.GPURollup) error { // a card without readings has no idle bucket
		if !gpus[gpu] {
			return nil
		}
		var bs []int64
		for _, r := range rs {
			if r.N > 0 && r.NIdle == r.N {
				bs = append(bs, r.Bucket)
			}
		}
		mu.Lock()
		out[gpu] = bs
		mu.Unlock()
		return nil
	})
	return out, err
}

// idleStretches are the stretches within t's held time in which all its cards were idle:
// the buckets idle on every card, consecutive ones merged.
func (t *idleTask) idleStretches(idle map[int64][]int64) [][2]int64 {
	count := map[int64]int{}
	for g := range t.gpus {
		for _, b := range idle[g] {
			if b+models.Rollup5m > t.start && b < t.end {
				count[b]++
			}
		}
	}
	var all []int64
	for b, n := range count {
		if n == len(t.gpus) {
			all = append(all, b)
		}
	}
	slices.Sort(all)
	var out [][2]int64
	for _, b := range all {
		s, e := max(b, t.start), min(b+models.Rollup5m, t.end)
		if n := len(out); n > 0 && out[n-1][1] == s {
			out[n-1][1] = e
			continue
		}
		out = append(out, [2]int64{s, e})
	}
	return out
}

// A pool's own reclaim settings are among its settings, so a pool change may change when
// idle reclaim stops tasks, which a replay cannot see. Its counterfactual re-evaluates the
// period after's tasks as a reclaim change does (stopUnder) under the pool's old settings
// and its new, each task's project's override as it stands, and replays each side's tasks
// held until those stops.

// reclaimChanged reports whether old and new stop idle tasks differently.
func reclaimChanged(old, new models.PoolConfig) bool {
	return scaler.ReclaimOf(models.ReclaimSettings{Pool: &old}) != scaler.ReclaimOf(models.ReclaimSettings{Pool: &new})
}

// reclaimedSpans are in's tasks, each that held the pool's cards ending where idle reclaim
// under cfg (with its project's override) stops it among tasks (idleTasks(in)), and how
// many reclaim stopped.
func reclaimedSpans(in Input, tasks []*idleTask, cfg models.PoolConfig) ([]models.TaskSpan, int) {
	pols := map[int64]scaler.ReclaimPolicy{}
	for _, p := range in.Window.Projects {
		pols[p.ID] = scaler.ReclaimOf(models.ReclaimSettings{Pool: &cfg, Override: p.Reclaim})
	}
	stops, n := map[int64]int64{}, 0
	for _, t := range tasks {
		pol, ok := pols[t.project]
		if !ok {
			pol = scaler.ReclaimOf(models.ReclaimSettings{Pool: &cfg})
		}
		stop, stopped := t.stopUnder(pol, in.To.Unix())
		stops[t.id] = stop
		if stopped {
			n++
		}
	}
	out := slices.Clone(in.Tasks)
	for i, t := range out {
		if stop, ok := stops[t.ID]; ok {
			out[i].EndedAt = time.Unix(stop, 0).UTC()
		}
	}
	return out, n
}
