package billing

import (
	"cmp"
	"errors"
	"slices"
	"strings"
	"time"

	"kashi/models"
)

// Input is everything one month's bills are computed from. Load fills it from the store;
// tests build it by hand.
type Input struct {
	Month    Month
	Location *time.Location
	// AsOf is when open allocations are cut (the month's end at the latest). For an open
	// allocation on a lost node the node's last-seen time is used when earlier.
	AsOf     time.Time
	Projects []models.Project
	// Tags are each project's tags, for grouping; optional.
	Tags map[int64][]string
	// Allocations overlap the month; Tasks are theirs.
	Allocations []models.LedgerAllocation
	Tasks       []models.LedgerTask
	// Rollups are the 5-minute rollups of the GPUs held, from the earliest allocation start,
	// sorted by GPU and bucket (as LedgerRollups returns them; others are sorted here).
	Rollups []models.GPURollup
	// Nodes give pool idle; leave nil to skip it (and when Allocations are not all
	// projects', pool idle would be wrong).
	Nodes       []models.LedgerNode
	Prices      []models.Price
	Plans       []models.BillingPlan
	Adjustments []models.Adjustment
}

// Result is a month's bills, one per project of the input by project name, and the pool
// idle of the month.
type Result struct {
	Bills    []Bill
	PoolIdle []PoolIdle
}

// lineKey identifies a bill line before pricing.
type lineKey struct {
	task     int64
	spec     string
	overflow bool
}

// lineAcc accumulates a line's seconds.
type lineAcc struct {
	key     lineKey
	project int64
	held    Breakdown
}

// Compute computes the month's bills. It is pure: the same input gives the same bills.
func Compute(in Input) (Result, error) {
	if in.Location == nil || in.AsOf.IsZero() {
		return Result{}, errors.New("billing: compute: location and as-of time are required")
	}
	from, to := in.Month.Bounds(in.Location)
	win := Span{from.Unix(), to.Unix()}
	asOf := min(in.AsOf.Unix(), win.End)
	l := newLedger(in, win, asOf)
	for _, a := range in.Allocations {
		l.add(a)
	}
	byProject := l.byProject()
	pr := newPricing(in.Prices, in.Plans, in.Adjustments)
	projects := slices.SortedFunc(slices.Values(in.Projects), func(a, b models.Project) int { return cmp.Compare(a.Name, b.Name) })
	res := Result{Bills: make([]Bill, 0, len(projects))}
	for _, p := range projects {
		b := Bill{ProjectID: p.ID, Project: p.Name, Tags: in.Tags[p.ID], Month: in.Month.String(),
			TimeZone: in.Location.String(), PeriodStart: from, PeriodEnd: to, AsOf: time.Unix(asOf, 0).UTC()}
		if err := pr.bill(&b, byProject[p.ID], l.tasks, l.taskHeld, win); err != nil {
			return Result{}, err
		}
		res.Bills = append(res.Bills, b)
	}
	if in.Nodes != nil {
		res.PoolIdle = poolIdle(in.Nodes, l.heldByGPU, Span{win.Start, asOf}, res.Bills)
	}
	return res, nil
}

// ledger classifies a month's allocations and sums them into bill lines.
type ledger struct {
	win      Span
	asOf     int64
	nodes    map[int64]models.LedgerNode
	tasks    map[int64]*models.LedgerTask
	rollups  map[int64][]models.GPURollup
	perTask  map[int64]bool
	lines    []lineAcc
	at       map[lineKey]int
	taskHeld map[int64]int64 // whole held seconds of per-task tasks that ended in the month
	// heldByGPU is what each GPU was held in the month, for pool idle; nil without nodes.
	heldByGPU map[int64][]Span
	// A task's allocations come one after another (by id), so the last task and line are
	// kept at hand rather than looked up for every allocation.
	task *models.LedgerTask
	line int
}

func newLedger(in Input, win Span, asOf int64) *ledger {
	l := &ledger{win: win, asOf: asOf, nodes: make(map[int64]models.LedgerNode, len(in.Nodes)),
		tasks: make(map[int64]*models.LedgerTask, len(in.Tasks)), rollups: indexRollups(in.Rollups),
		perTask: map[int64]bool{}, at: map[lineKey]int{}, taskHeld: map[int64]int64{}, line: -1}
	for _, n := range in.Nodes {
		l.nodes[n.ID] = n
	}
	for i := range in.Tasks {
		l.tasks[in.Tasks[i].ID] = &in.Tasks[i]
	}
	for _, p := range in.Plans {
		l.perTask[p.ProjectID] = p.Mode == models.BillPerTask
	}
	if in.Nodes != nil {
		l.heldByGPU = map[int64][]Span{}
	}
	return l
}

// add classifies one allocation's seconds in the month and adds them to its line.
func (l *ledger) add(a models.LedgerAllocation) {
	if l.task == nil || l.task.ID != a.TaskID {
		l.task = l.tasks[a.TaskID]
	}
	t := l.task
	held := heldSpan(a, l.nodes, l.asOf)
	if t != nil && l.perTask[a.ProjectID] && endedIn(t, l.win) {
		l.taskHeld[a.TaskID] += held.Seconds()
	}
	b := Classify(held, l.win, l.rollups[a.GPUID], t != nil && IsInterrupted(t.State))
	if b.Nominal() == 0 {
		return
	}
	if l.heldByGPU != nil {
		l.heldByGPU[a.GPUID] = append(l.heldByGPU[a.GPUID], held.Clip(l.win))
	}
	if k := (lineKey{a.TaskID, a.Spec, a.Overflow}); l.line < 0 || l.lines[l.line].key != k {
		i, ok := l.at[k]
		if !ok {
			i = len(l.lines)
			l.at[k] = i
			l.lines = append(l.lines, lineAcc{key: k, project: a.ProjectID})
		}
		l.line = i
	}
	l.lines[l.line].held.Add(b)
}

// byProject returns each project's lines in bill order: by task, spec, overflow last.
func (l *ledger) byProject() map[int64][]lineAcc {
	lines := l.lines
	slices.SortFunc(lines, func(x, y lineAcc) int {
		return cmp.Or(cmp.Compare(x.project, y.project), cmp.Compare(x.key.task, y.key.task),
			strings.Compare(x.key.spec, y.key.spec), boolCmp(x.key.overflow, y.key.overflow))
	})
	out := make(map[int64][]lineAcc)
	for i := 0; i < len(lines); {
		j := i
		for j < len(lines) && lines[j].project == lines[i].project {
			j++
		}
		out[lines[i].project] = lines[i:j:j]
		i = j
	}
	return out
}

// heldSpan is the allocation's held interval; an open one ends at asOf, or at its node's
// last-seen time when the node is lost.
func heldSpan(a models.LedgerAllocation, nodes map[int64]models.LedgerNode, asOf int64) Span {
	e := a.End
	if e == 0 {
		e = asOf
		if n, ok := nodes[a.NodeID]; ok && n.State == models.NodeLost {
			e = min(asOf, n.LastSeenAt.Unix())
		}
	}
	return Span{a.Start, max(a.Start, e)}
}

// endedIn reports whether the task ended in the window; a task ending exactly at the start
// belongs to the month before, as its last second does.
func endedIn(t *models.LedgerTask, win Span) bool {
	return t.EndedAt > win.Start && t.EndedAt <= win.End
}

// indexRollups returns each GPU's rollups sorted by bucket, sharing the input's storage
// when it is already sorted by GPU and bucket.
func indexRollups(rs []models.GPURollup) map[int64][]models.GPURollup {
	byGPUBucket := func(a, b models.GPURollup) int {
		return cmp.Or(cmp.Compare(a.GPUID, b.GPUID), cmp.Compare(a.Bucket, b.Bucket))
	}
	fine := func(r models.GPURollup) bool { return r.Resolution == 0 || r.Resolution == models.Rollup5m }
	if !slices.IsSortedFunc(rs, byGPUBucket) || !all(rs, fine) {
		var c []models.GPURollup
		for _, r := range rs {
			if fine(r) {
				c = append(c, r)
			}
		}
		slices.SortFunc(c, byGPUBucket)
		rs = c
	}
	out := make(map[int64][]models.GPURollup)
	for i := 0; i < len(rs); {
		j := i
		for j < len(rs) && rs[j].GPUID == rs[i].GPUID {
			j++
		}
		out[rs[i].GPUID] = rs[i:j:j]
		i = j
	}
	return out
}

// all reports whether f holds for every element.
func all[T any](xs []T, f func(T) bool) bool {
	for _, x := range xs {
		if !f(x) {
			return false
		}
	}
	return true
}
