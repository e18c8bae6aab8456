// Package pilot owns the pilot review of an elastic pool (试点复盘): over a period, whether the
// peaks were absorbed, whether the troughs were released, how many held cards sat idle and
// were reclaimed, and what the period's machines cost against the same work on a fixed
// fleet sized for the peak, with a verdict per question.
//
// Load reads a period from the store; Compute is the one place the review is computed. The
// figures that bills also show (provisioned, held, idle and unheld card time) are read from
// billing's own computation (billing.Utilization); the fixed fleet's waits come from the
// real replay (package replay) of the period's tasks.
//
// It also measures what each change saved (change.go): a version of a pool's settings, by
// the periods around it and the period after replayed under the old settings and the new;
// a price (price_change.go), by its month's bills against the month before and its month
// billed at the old rates and the new; a quota (quota_change.go), by its project's figures
// around it and the period after replayed under the old quota and the new. ChangeCache measures each once in the background;
// WeekChanges lists a week's for the weekly report and its page.
package pilot

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"kashi/billing"
	"kashi/models"
	"kashi/replay"
)

// Source is what Load reads; *models.Store implements it.
type Source interface {
	billing.Source
	TaskSpans(ctx context.Context, since, until time.Time) ([]models.TaskSpan, error)
	ScalingEventsIn(ctx context.Context, poolID int64, from, to time.Time) ([]models.ScalingEvent, error)
}

// The review's rules, where the pool's settings give none.
const (
	// MaxDays bounds a period.
	MaxDays = 92
	// DefaultDays is the period when none is asked: the seed's two weeks of a pilot.
	DefaultDays = 14
	// peakGap merges two stretches of demand over capacity this close into one peak, and
	// peakMin is the shortest stretch that counts: a task waits a scheduler tick or two
	// before its cards are given, which is no peak.
	peakGap = 10 * time.Minute
	peakMin = 5 * time.Minute
	// LongDrain is a drain that took longer than this from the loop's drain to the
	// machine's removal.
	LongDrain = time.Hour
	// releaseSlack is added to a pool's unneeded time and cooldown before an empty machine
	// above the minimum counts as kept: a few scaling ticks.
	releaseSlack = 5 * time.Minute
	// spanLookback is how far before the period the tasks that may still hold cards in it
	// are read.
	spanLookback = 7 * 24 * time.Hour
)

// Input is everything Compute reads. Load fills it; tests build it by hand.
type Input struct {
	Pool models.ConfiguredPool
	// Project, when set, narrows the tasks (their waits, idle cards, reclaims) to one
	// project; the machines and their cost stay the pool's.
	Project string
	// From, To is the period; AsOf is when it was read (To at the latest).
	From, To, AsOf time.Time
	// RateFen is the spec's default price of a card-hour in the month the period starts.
	RateFen int64
	// Window is billing's input over the period for every project.
	Window billing.WindowInput
	// Tasks are the tasks of the pool's spec, and those of any spec that held its cards,
	// that started and ended, submitted before To and ended after From.
	Tasks []models.TaskSpan
	// Events are the pool's scaling events in the period, oldest first.
	Events []models.ScalingEvent
	// NoFixedReplay leaves out the fixed fleet's replay (its waits): a change's two periods
	// are compared by replays of their own.
	NoFixedReplay bool
}

// Review is a pool's pilot review over a period.
type Review struct {
	Pool, Spec, Project string
	From, To            time.Time
	GPUsPerNode         int
	MinNodes, MaxNodes  int
	// CatchS is how long the pool's settings give the scaling loop to catch a peak: its
	// scale-up delay and boot timeout.
	CatchS int64

	Peaks []Peak
	// Waits are the period's tasks' waits (start − submit), in seconds.
	Tasks        int
	Waited       int
	MeanWaitS    int64
	P95WaitS     int64
	MaxWaitS     int64
	Troughs      []Trough
	Drains       []Drain
	KeptS        int64 // machine-seconds empty machines above the minimum stayed up past the release
	KeptMost     int   // the most machines kept so at once
	PeakNodes    int   // the most machines up at once
	ProvisionedS int64 // the pool's card time provisioned (billing)
	HeldS        int64 // held by tasks (billing)
	EffectiveS   int64 // held and used: active or serving (billing)
	IdleS        int64 // held but idle (the bills' idle class)
	UnheldS      int64 // provisioned, held by no task (the bills' pool idle)
	Reclaims     int   // tasks ended by idle reclaim
	ReclaimedS   int64 // their card time in the period
	Cost         Cost
	Verdicts     []Verdict
	// Series is the cards up and the cards asked over the period, for a chart: at most
	// SeriesPoints points, each the most of either in its stretch, so no peak falls between
	// two points.
	Series []Point
}

// Point is the most cards up and asked for over a stretch of the period from At.
type Point struct {
	At                 time.Time
	UpGPUs, DemandGPUs int
}

// SeriesPoints bounds a review's Series.
const SeriesPoints = 240

// Peak is a stretch where the cards the pool's tasks asked for (waiting and running) were
// more than the cards of the machines up.
type Peak struct {
	From, To time.Time
	// ShortGPUs is the most cards missing at once.
	ShortGPUs int
	// Tasks submitted in the peak, those that waited, the longest and mean wait.
	Tasks, Waited      int
	MaxWaitS, MeanWait int64
	// Grew: the pool gained machines during the peak; AtMax: it was at its maximum size.
	Grew, AtMax bool
	// Absorbed: the peak closed within CatchS of its start.
	Absorbed bool
	// Reasons are the scaling loop's recorded scale-ups from the scale-up delay before the
	// peak to its end.
	Reasons []models.ScalingEvent
}

// Trough is a stretch where a machine above the pool's minimum stayed up with no card held
// longer than the pool's settings release it.
type Trough struct {
	Node     string
	From, To time.Time
}

// Drain is a drain that took longer than LongDrain until its machine was removed; To is zero
// when the removal never came in the period.
type Drain struct {
	Node     string
	From, To time.Time
}

// Cost is the period's machines at the spec's price against a fixed fleet of PeakNodes
// machines over the whole period, whose waits are the replay's.
type Cost struct {
	RateFen        int64
	ElasticFen     int64
	FixedNodes     int
	FixedFen       int64
	SavedFen       int64
	FixedMeanWaitS int64
	FixedP95WaitS  int64
	FixedMaxWaitS  int64
	ReplayedTasks  int
}

// Verdict answers one question of the seed: Question is a code (QPeaks, QTroughs, QIdle,
// QCost), OK the answer, and the numbers behind it.
type Verdict struct {
	Question string
	OK       bool
	// Of, N: peaks absorbed N of Of; machines kept N, hours a day Hours (QTroughs); idle
	// share Pct and reclaims N (QIdle); saved Fen (QCost).
	N, Of int
	Hours float64
	Pct   float64
	Fen   int64
}

// The questions.
const (
	QPeaks   = "peaks"
	QTroughs = "troughs"
	QIdle    = "idle"
	QCost    = "cost"
)

// Load reads the period [from, to) of the pool named pool (and its tasks of project, when
// set) from src as of now; the pool must be configured.
func Load(ctx context.Context, src Source, pool, project string, from, to, now time.Time) (Input, error) {
	cps, err := src.ConfiguredPools(ctx)
	if err != nil {
		return Input{}, err
	}
	i := slices.IndexFunc(cps, func(p models.ConfiguredPool) bool { return p.Name == pool })
	if i < 0 {
		return Input{}, fmt.Errorf("pilot: no pool %q", pool)
	}
	if to.After(now) {
		to = now
	}
	in := Input{Pool: cps[i], Project: project, From: from, To: to, AsOf: now}
	if in.Window, err = billing.LoadWindow(ctx, src, from, to, to, nil); err != nil {
		return Input{}, err
	}
	loc, err := billing.Location(ctx, src)
	if err != nil {
		return Input{}, err
	}
	prices, err := src.Prices(ctx, billing.MonthOf(from, loc).String())
	if err != nil {
		return Input{}, err
	}
	for _, p := range prices {
		if p.ProjectID == 0 && p.Spec == in.Pool.Spec {
			in.RateFen = p.RateFen
		}
	}
	spans, err := src.TaskSpans(ctx, from.Add(-spanLookback), to)
	if err != nil {
		return Input{}, err
	}
	// A task of any spec is the pool's when it held the pool's cards.
	onPool := map[int64]bool{}
	for _, n := range in.Window.Nodes {
		onPool[n.ID] = n.Pool == pool
	}
	ranHere := map[int64]bool{}
	for _, a := range in.Window.Allocations {
		if onPool[a.NodeID] {
			ranHere[a.TaskID] = true
		}
	}
	for _, t := range spans {
		if (t.Spec == in.Pool.Spec || t.Spec == "" && ranHere[t.ID]) && t.EndedAt.After(from) {
			in.Tasks = append(in.Tasks, t)
		}
	}
	if in.Events, err = src.ScalingEventsIn(ctx, in.Pool.ID, from, to); err != nil {
		return Input{}, err
	}
	return in, nil
}

// Compute reviews in.
func Compute(in Input) (Review, error) {
	cfg := in.Pool.Config.WithDefaults()
	r := Review{Pool: in.Pool.Name, Spec: in.Pool.Spec, Project: in.Project, From: in.From, To: in.To,
		GPUsPerNode: cfg.GPUsPerNode, MinNodes: cfg.MinNodes, MaxNodes: cfg.MaxNodes,
		CatchS: cfg.ScaleUpDelayS + cfg.BootTimeoutS}
	from, to := in.From.Unix(), in.To.Unix()
	nodes := poolNodes(in.Window.Nodes, in.Pool.Name, from, to)

	rep, err := billing.Utilization(in.Window)
	if err != nil {
		return Review{}, fmt.Errorf("pilot: %w", err)
	}
	names := map[string]bool{}
	for _, n := range nodes {
		names[n.name] = true
	}
	for _, u := range rep.Nodes {
		if names[u.Key] {
			r.ProvisionedS += u.ProvisionedS
			r.UnheldS += u.UnheldS
			if in.Project == "" {
				r.HeldS += u.NominalS
				r.EffectiveS += u.EffectiveS
				r.IdleS += u.Idle
			}
		}
	}
	mine := func(project string) bool { return in.Project == "" || in.Project == project }
	if in.Project != "" {
		pr, err := billing.Utilization(onlyProject(in.Window, in.Project))
		if err != nil {
			return Review{}, fmt.Errorf("pilot: %w", err)
		}
		for _, u := range pr.Nodes {
			if names[u.Key] {
				r.HeldS += u.NominalS
				r.EffectiveS += u.EffectiveS
				r.IdleS += u.Idle
			}
		}
	}
	r.reclaims(in, nodes, mine)

	up := upSteps(nodes, from, to)
	demand := demandSteps(in.Tasks, from, to)
	r.PeakNodes = maxLevel(up) / max(1, cfg.GPUsPerNode)
	r.peaks(in, up, demand, cfg, mine)
	r.Series = series(up, demand, from, to)
	r.waits(in, mine)
	r.troughs(in, nodes, cfg)
	r.drains(in, nodes)
	if err := r.cost(in, cfg); err != nil {
		return Review{}, err
	}
	r.verdicts()
	return r, nil
}

// node is one machine of the pool up over [from, to) within the period, with its cards and
// the stretches some task held any of them.
type node struct {
	id       int64
	name     string
	gpus     int
	from, to int64
	gpuIDs   map[int64]bool
}

func poolNodes(ns []models.LedgerNode, pool string, from, to int64) []node {
	var out []node
	for _, n := range ns {
		if n.Pool != pool {
			continue
		}
		a, b := max(n.RegisteredAt.Unix(), from), min(n.LastSeenAt.Unix(), to)
		if a >= b {
			continue
		}
		nd := node{id: n.ID, name: n.Hostname, gpus: len(n.GPUIDs), from: a, to: b, gpuIDs: map[int64]bool{}}
		for _, g := range n.GPUIDs {
			nd.gpuIDs[g] = true
		}
		out = append(out, nd)
	}
	return out
}

// step is a change of a level at a time.
type step struct {
	at    int64
	delta int
}

// levels turns steps into (time, level) points, the level from that time on.
func levels(steps []step) []step {
	slices.SortStableFunc(steps, func(a, b step) int { return cmp.Compare(a.at, b.at) })
	var out []step
	lvl := 0
	for _, s := range steps {
		lvl += s.delta
		if n := len(out); n > 0 && out[n-1].at == s.at {
			out[n-1].delta = lvl
		} else {
			out = append(out, step{s.at, lvl})
		}
	}
	return out
}

func maxLevel(ls []step) int {
	m := 0
	for _, s := range ls {
		m = max(m, s.delta)
	}
	return m
}

// levelAt is the level of ls at t.
func levelAt(ls []step, t int64) int {
	i, _ := slices.BinarySearchFunc(ls, t+1, func(s step, t int64) int { return cmp.Compare(s.at, t) })
	if i == 0 {
		return 0
	}
	return ls[i-1].delta
}

// series is up and demand over [from, to) in at most SeriesPoints equal stretches, each the
// most of either in it.
func series(up, demand []step, from, to int64) []Point {
	if to <= from {
		return nil
	}
	n := int64(SeriesPoints)
	width := max(1, (to-from+n-1)/n)
	var out []Point
	for a := from; a < to; a += width {
		b := min(a+width, to)
		out = append(out, Point{At: time.Unix(a, 0).UTC(), UpGPUs: most(up, a, b), DemandGPUs: most(demand, a, b)})
	}
	return out
}

// most is the highest level of ls over [a, b).
func most(ls []step, a, b int64) int {
	m := levelAt(ls, a)
	i, _ := slices.BinarySearchFunc(ls, a+1, func(s step, t int64) int { return cmp.Compare(s.at, t) })
	for ; i < len(ls) && ls[i].at < b; i++ {
		m = max(m, ls[i].delta)
	}
	return m
}

// upSteps are the cards of the machines up.
func upSteps(nodes []node, from, to int64) []step {
	var s []step
	for _, n := range nodes {
		s = append(s, step{n.from, n.gpus}, step{n.to, -n.gpus})
	}
	return levels(s)
}

// demandSteps are the cards the tasks asked for from their submit to their end.
func demandSteps(tasks []models.TaskSpan, from, to int64) []step {
	var s []step
	for _, t := range tasks {
		a, b := max(t.SubmittedAt.Unix(), from), min(t.EndedAt.Unix(), to)
		if a < b {
			s = append(s, step{a, t.GPUs}, step{b, -t.GPUs})
		}
	}
	return levels(s)
}

// peaks finds the stretches demand was over the cards up, merged over peakGap and kept from
// peakMin, and judges each.
func (r *Review) peaks(in Input, up, demand []step, cfg models.PoolConfig, mine func(string) bool) {
	times := make([]int64, 0, len(up)+len(demand))
	for _, s := range up {
		times = append(times, s.at)
	}
	for _, s := range demand {
		times = append(times, s.at)
	}
	slices.Sort(times)
	times = slices.Compact(times)
	type stretch struct {
		from, to int64
		short    int
	}
	var ss []stretch
	for i, t := range times {
		short := levelAt(demand, t) - levelAt(up, t)
		if short <= 0 {
			continue
		}
		end := in.To.Unix()
		if i+1 < len(times) {
			end = times[i+1]
		}
		if n := len(ss); n > 0 && t-ss[n-1].to < int64(peakGap/time.Second) {
			ss[n-1].to, ss[n-1].short = end, max(ss[n-1].short, short)
			continue
		}
		ss = append(ss, stretch{t, end, short})
	}
	maxCards := cfg.MaxNodes * cfg.GPUsPerNode
	for _, s := range ss {
		if s.to-s.from < int64(peakMin/time.Second) {
			continue
		}
		p := Peak{From: time.Unix(s.from, 0).UTC(), To: time.Unix(s.to, 0).UTC(), ShortGPUs: s.short}
		p.Grew = levelAt(up, s.to) > levelAt(up, s.from)
		for _, l := range up {
			if l.at >= s.from && l.at < s.to && maxCards > 0 && l.delta >= maxCards {
				p.AtMax = true
			}
		}
		p.AtMax = p.AtMax || (maxCards > 0 && levelAt(up, s.from) >= maxCards)
		p.Absorbed = s.to-s.from <= r.CatchS
		var sum int64
		for _, t := range in.Tasks {
			sub := t.SubmittedAt.Unix()
			if sub < s.from || sub >= s.to || !mine(t.Project) {
				continue
			}
			p.Tasks++
			if w := t.StartedAt.Unix() - sub; w > 0 {
				p.Waited++
				sum += w
				p.MaxWaitS = max(p.MaxWaitS, w)
			}
		}
		if p.Waited > 0 {
			p.MeanWait = sum / int64(p.Waited)
		}
		lead := s.from - cfg.ScaleUpDelayS
		for _, e := range in.Events {
			if at := e.At.Unix(); e.Kind == "scale-up" && at >= lead && at < s.to {
				p.Reasons = append(p.Reasons, e)
				p.Grew = true
			}
		}
		r.Peaks = append(r.Peaks, p)
	}
}

// waits sums the waits of the tasks submitted in the period.
func (r *Review) waits(in Input, mine func(string) bool) {
	var ws []int64
	for _, t := range in.Tasks {
		if t.SubmittedAt.Before(in.From) || !t.SubmittedAt.Before(in.To) || !mine(t.Project) {
			continue
		}
		w := max(0, t.StartedAt.Unix()-t.SubmittedAt.Unix())
		ws = append(ws, w)
		if w > 0 {
			r.Waited++
		}
	}
	r.Tasks = len(ws)
	if len(ws) == 0 {
		return
	}
	slices.Sort(ws)
	var sum int64
	for _, w := range ws {
		sum += w
	}
	r.MeanWaitS, r.MaxWaitS = sum/int64(len(ws)), ws[len(ws)-1]
	r.P95WaitS = ws[(len(ws)-1)*95/100]
}

// reclaims counts the tasks of the pool's machines that idle reclaim ended, with their card
// time in the period.
func (r *Review) reclaims(in Input, nodes []node, mine func(string) bool) {
	onPool := map[int64]bool{}
	for _, n := range nodes {
		onPool[n.id] = true
	}
	reclaimed := map[int64]bool{}
	project := map[int64]string{}
	for _, p := range in.Window.Projects {
		project[p.ID] = p.Name
	}
	for _, t := range in.Window.Tasks {
		if t.Ending == models.EndReclaimed && mine(project[t.ProjectID]) {
			reclaimed[t.ID] = true
		}
	}
	seen := map[int64]bool{}
	from, to := in.From.Unix(), in.To.Unix()
	for _, a := range in.Window.Allocations {
		if !onPool[a.NodeID] || !reclaimed[a.TaskID] {
			continue
		}
		end := a.End
		if end == 0 {
			end = in.AsOf.Unix()
		}
		if s := min(end, to) - max(a.Start, from); s > 0 {
			r.ReclaimedS += s
		}
		if !seen[a.TaskID] {
			seen[a.TaskID] = true
			r.Reclaims++
		}
	}
}

// onlyProject is w limited to the project named name.
func onlyProject(w billing.WindowInput, name string) billing.WindowInput {
	w.Only = map[int64]bool{}
	for _, p := range w.Projects {
		if p.Name == name {
			w.Only[p.ID] = true
		}
	}
	return w
}

// troughs finds, per machine, the stretches no card was held, and counts the time past the
// pool's release (unneeded time, cooldown and a few ticks) while the pool was above its
// minimum: machines kept that the settings should have released.
func (r *Review) troughs(in Input, nodes []node, cfg models.PoolConfig) {
	allow := cfg.UnneededS + cfg.CooldownDownS + int64(releaseSlack/time.Second)
	asOf := in.AsOf.Unix()
	type empty struct {
		node     int
		from, to int64 // past the allowance
	}
	var es []empty
	for i, n := range nodes {
		var held [][2]int64
		for _, a := range in.Window.Allocations {
			if !n.gpuIDs[a.GPUID] {
				continue
			}
			end := a.End
			if end == 0 {
				end = asOf
			}
			held = append(held, [2]int64{a.Start, end})
		}
		slices.SortFunc(held, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
		at := n.from
		gap := func(a, b int64) {
			if b-a > allow {
				es = append(es, empty{i, a + allow, b})
			}
		}
		for _, h := range held {
			if h[0] > at {
				gap(at, min(h[0], n.to))
			}
			at = max(at, h[1])
			if at >= n.to {
				break
			}
		}
		if at < n.to {
			gap(at, n.to)
		}
	}
	// Kept machines at a time are at most those above the minimum.
	var steps []step
	for _, e := range es {
		steps = append(steps, step{e.from, 1}, step{e.to, -1})
	}
	kept := levels(steps)
	var upS []step
	for _, n := range nodes {
		upS = append(upS, step{n.from, 1}, step{n.to, -1})
	}
	upN := levels(upS)
	times := make([]int64, 0, len(kept)+len(upN))
	for _, s := range kept {
		times = append(times, s.at)
	}
	for _, s := range upN {
		times = append(times, s.at)
	}
	slices.Sort(times)
	times = slices.Compact(times)
	for i := 0; i+1 < len(times); i++ {
		k := min(levelAt(kept, times[i]), max(0, levelAt(upN, times[i])-cfg.MinNodes))
		r.KeptS += int64(k) * (times[i+1] - times[i])
		r.KeptMost = max(r.KeptMost, k)
	}
	if r.KeptS == 0 {
		return
	}
	slices.SortFunc(es, func(a, b empty) int { return cmp.Compare(b.to-b.from, a.to-a.from) })
	for _, e := range es[:min(len(es), 10)] {
		r.Troughs = append(r.Troughs, Trough{Node: nodes[e.node].name, From: time.Unix(e.from, 0).UTC(), To: time.Unix(e.to, 0).UTC()})
	}
}

// drains pairs the loop's drains with their machines' removals.
func (r *Review) drains(in Input, nodes []node) {
	name := map[int64]string{}
	for _, n := range nodes {
		name[n.id] = n.name
	}
	open := map[int64]time.Time{}
	for _, e := range in.Events {
		if e.NodeID == nil {
			continue
		}
		switch e.Kind {
		case "drain":
			open[*e.NodeID] = e.At
		case "undrain":
			delete(open, *e.NodeID)
		case "remove", "delete-machine":
			if at, ok := open[*e.NodeID]; ok {
				if e.At.Sub(at) > LongDrain {
					r.Drains = append(r.Drains, Drain{Node: nodeLabel(name, *e.NodeID), From: at, To: e.At})
				}
				delete(open, *e.NodeID)
			}
		}
	}
	for id, at := range open {
		if in.To.Sub(at) > LongDrain {
			r.Drains = append(r.Drains, Drain{Node: nodeLabel(name, id), From: at})
		}
	}
	slices.SortFunc(r.Drains, func(a, b Drain) int { return a.From.Compare(b.From) })
}

func nodeLabel(names map[int64]string, id int64) string {
	if n, ok := names[id]; ok {
		return n
	}
	return "#" + strconv.FormatInt(id, 10)
}

// cost prices the period's provisioned card time and a fixed fleet of the peak's machines
// over the whole period, and replays the period's tasks on that fleet for its waits.
func (r *Review) cost(in Input, cfg models.PoolConfig) error {
	c := Cost{RateFen: in.RateFen, FixedNodes: r.PeakNodes}
	c.ElasticFen = billing.Amount(r.ProvisionedS, in.RateFen)
	period := in.To.Unix() - in.From.Unix()
	c.FixedFen = billing.Amount(int64(c.FixedNodes*cfg.GPUsPerNode)*period, in.RateFen)
	c.SavedFen = c.FixedFen - c.ElasticFen
	if c.FixedNodes > 0 && !in.NoFixedReplay {
		res, n, err := ReplayFixed(in.Tasks, in.From, in.To, in.Pool.Name, in.Pool.Spec, cfg.GPUsPerNode, c.FixedNodes, in.RateFen)
		if err != nil {
			return err
		}
		c.ReplayedTasks = n
		c.FixedMeanWaitS, c.FixedP95WaitS, c.FixedMaxWaitS = int64(res.WaitS.Mean), int64(res.WaitS.P95), res.WaitS.Max
	}
	r.Cost = c
	return nil
}

// ReplayFixed replays the tasks submitted in [from, to), each for the time it held its
// cards, on a fixed pool of nodes machines of gpn cards under the production scheduler, and
// returns the result and how many tasks it replayed.
func ReplayFixed(tasks []models.TaskSpan, from, to time.Time, pool, spec string, gpn, nodes int, rateFen int64) (*replay.Result, int, error) {
	tr := trace(tasks, from, to, spec, nodes*gpn)
	if len(tr.Jobs) == 0 {
		return &replay.Result{}, 0, nil
	}
	fleet := replay.Config{Pools: []replay.Pool{{Name: pool, Spec: spec, GPUsPerNode: gpn, Nodes: nodes, RateFen: rateFen}}}
	res, err := replay.Run(tr, replay.Options{Fleet: fleet})
	if err != nil {
		return nil, 0, fmt.Errorf("pilot: replay on a fixed fleet: %w", err)
	}
	return res, len(tr.Jobs), nil
}

// trace is the tasks submitted in [from, to) as a replay's jobs of spec, each for the time it
// held its cards; tasks asking more than largest cards are left out.
func trace(tasks []models.TaskSpan, from, to time.Time, spec string, largest int) *replay.Trace {
	tr := &replay.Trace{Skipped: map[string]int{}}
	for _, t := range tasks {
		if t.SubmittedAt.Before(from) || !t.SubmittedAt.Before(to) || t.GPUs > largest {
			continue
		}
		tr.Jobs = append(tr.Jobs, replay.Job{ID: strconv.FormatInt(t.ID, 10), Row: len(tr.Jobs) + 1, Submit: t.SubmittedAt.Unix(),
			Duration: t.EndedAt.Unix() - t.StartedAt.Unix(), GPUs: t.GPUs, Group: t.Project, Spec: spec})
	}
	return tr
}

// verdicts answers the seed's questions.
func (r *Review) verdicts() {
	abs := 0
	for _, p := range r.Peaks {
		if p.Absorbed {
			abs++
		}
	}
	r.Verdicts = append(r.Verdicts, Verdict{Question: QPeaks, OK: abs == len(r.Peaks), N: abs, Of: len(r.Peaks)})
	days := max(1, r.To.Sub(r.From).Hours()/24)
	t := Verdict{Question: QTroughs, OK: r.KeptS < int64(time.Hour/time.Second), N: r.KeptMost}
	if r.KeptMost > 0 {
		t.Hours = float64(r.KeptS) / 3600 / float64(r.KeptMost) / days
	}
	r.Verdicts = append(r.Verdicts, t)
	idle := Verdict{Question: QIdle}
	if r.HeldS > 0 {
		idle.Pct = 100 * float64(r.IdleS) / float64(r.HeldS)
	}
	idle.OK, idle.N = idle.Pct < idleShareOK, r.Reclaims
	r.Verdicts = append(r.Verdicts, idle)
	r.Verdicts = append(r.Verdicts, Verdict{Question: QCost, OK: r.Cost.SavedFen >= 0, Fen: r.Cost.SavedFen})
}

// idleShareOK is the share of held card time idle under which the idle cards' answer is yes.
const idleShareOK = 10
