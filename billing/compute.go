package billing

import (
	"cmp"
	"errors"
	"maps"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
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
	AsOf time.Time
	// Projects are billed with their tags (models.Project.TagList), which the bills carry.
	Projects []models.Project
	// Quotas give the contracts' overflow rates; one per project and spec ("" = all specs).
	Quotas []models.Quota
	// Ledger gives the allocations that overlap the month with their GPUs' 5-minute rollups,
	// GPU by GPU; Tasks gives the tasks the bills' lines name, asked once the ledger has
	// streamed past.
	Ledger GPULedger
	Tasks  TaskSource
	// Nodes give pool idle; leave nil to skip it (and when the Ledger is not all projects',
	// pool idle would be wrong).
	Nodes []models.LedgerNode
	// Regions are the regions of the nodes whose pool has one, by node id: bill lines show
	// where their cards were.
	Regions map[int64]string
	// Unmanaged are the GPUs' uses by processes of no task overlapping the month (End 0:
	// going on), for pool idle's unmanaged use.
	Unmanaged   []models.UnmanagedSpan
	Prices      []models.Price
	Plans       []models.BillingPlan
	Adjustments []models.Adjustment
	// Reservations are the booked windows overlapping the month, a cancelled one ending at
	// its cancellation (models.Store.BilledReservations); UnusedBookingPct is the rule for
	// their unused card-hours by spec (BookingRules; a spec absent has the default,
	// models.DefaultUnusedBookingPct).
	Reservations     []models.Reservation
	UnusedBookingPct map[string]int
	// Serving classes the card time of inference services' replicas by what the services
	// served (models.ServiceServing); its zero value knows no service.
	Serving models.ServiceServing
	// Metering is the idle and active thresholds in force (the billing settings'; zero means
	// the defaults); each rollup records the ones that classified it, the same unless the
	// settings changed.
	Metering models.Thresholds
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
	// region is where the line's cards are: the pool region of the node of its first
	// allocation (by id, regionOf) whose node has one.
	region   string
	regionOf int64
	held     Breakdown
	wasted   int64
	// next is the index of the task's next line, or -1.
	next int
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
	if in.Ledger != nil {
		// GPUs come a few at once: each is classified on its own (in a buffer of the pool),
		// then summed in turn.
		var (
			mu   sync.Mutex
			bufs sync.Pool
		)
		err := in.Ledger(func(gpu int64, as []models.LedgerAllocation, rs []models.GPURollup) error {
			buf, _ := bufs.Get().(*[]classified)
			if buf == nil {
				buf = new([]classified)
			}
			defer bufs.Put(buf)
			cs := slices.Grow((*buf)[:0], len(as))[:len(as)]
			*buf = cs
			for i := range as {
				c := &cs[i]
				c.held = heldSpan(&as[i], l.nodes, asOf)
				c.class = classifyHeld(&as[i], c.held, win, rs, in.Serving)
			}
			mu.Lock()
			defer mu.Unlock()
			l.addGPU(gpu, as, cs)
			return nil
		})
		if err != nil {
			return Result{}, err
		}
	}
	if err := l.readTasks(in.Tasks); err != nil {
		return Result{}, err
	}
	byProject := l.byProject()
	booked := l.booked.measure()
	pr := newPricing(in.Prices, in.Plans, in.Quotas, in.Adjustments)
	projects := slices.SortedFunc(slices.Values(in.Projects), func(a, b models.Project) int { return cmp.Compare(a.Name, b.Name) })
	res := Result{Bills: make([]Bill, len(projects))}
	month, zone, asOfT := in.Month.String(), in.Location.String(), time.Unix(asOf, 0).UTC()
	if in.Metering.IdleUtilPct == 0 { // not given: the defaults, as the settings would say
		in.Metering = models.BillingSettings{}.Metering()
	}
	// Bills are independent of one another (pricing only reads the shared maps): they are
	// priced by a few workers, each taking every w-th project; the first error in project
	// order wins, as it would one after another.
	errs := make([]error, len(projects))
	workers := min(runtime.GOMAXPROCS(0), max(1, len(projects)/64))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(projects); i += workers {
				p := projects[i]
				b := &res.Bills[i]
				*b = Bill{ProjectID: p.ID, Project: p.Name, Tags: p.TagList(), Month: month,
					TimeZone: zone, IdleUtilPct: in.Metering.IdleUtilPct, ActiveUtilPct: in.Metering.ActiveUtilPct,
					PeriodStart: from, PeriodEnd: to, AsOf: asOfT, Bookings: booked[p.ID]}
				errs[i] = pr.bill(b, byProject[p.ID], l.tasks, l.taskHeld, win, asOf)
				b.Models = modelCosts(b.Lines, l.tasks)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return Result{}, err
		}
	}
	if in.Nodes != nil {
		res.PoolIdle = poolIdle(in.Nodes, l.gpuTimes, l.unmanaged, l.poolWin(), res.Bills)
	}
	return res, nil
}

// ledger sums a month's classified allocations, GPU by GPU, into bill lines, the bookings'
// use and the GPUs' pool idle.
type ledger struct {
	win     Span
	asOf    int64
	nodes   map[int64]models.LedgerNode
	regions map[int64]string
	// tasks are those the lines name, read once the ledger has streamed past (readTasks).
	tasks   map[int64]*models.LedgerTask
	perTask map[int64]bool
	lines   chunked[lineAcc]
	// held are the spans each line's allocations of the task's last attempt held (by the
	// line's index), from which its wasted seconds are counted once its task is known
	// (readTasks); then they are dropped. Earlier attempts' are counted as they come.
	held chunked[spanSet]
	// first is the index of each task's first line; a task's lines are chained by next.
	first taskLines
	// taskHeld is the whole held seconds of per-task tasks: while the ledger streams, of all
	// of them; then of those that ended in the month.
	taskHeld map[int64]int64
	booked   *bookingSet
	// gpuTimes are the GPUs' figures for pool idle, of the GPUs held; nil without nodes.
	// gpuNode is each GPU's node, unmanaged the GPUs' unmanaged use, and spans a buffer of
	// one GPU's spans held.
	gpuTimes  map[int64]gpuTimes
	gpuNode   map[int64]models.LedgerNode
	unmanaged map[int64][]Span
	spans     []Span
}

func newLedger(in Input, win Span, asOf int64) *ledger {
	l := &ledger{win: win, asOf: asOf, nodes: make(map[int64]models.LedgerNode, len(in.Nodes)),
		perTask: map[int64]bool{}, taskHeld: map[int64]int64{},
		booked: newBookingSet(in, Span{win.Start, asOf})}
	for _, n := range in.Nodes {
		l.nodes[n.ID] = n
	}
	l.regions = in.Regions
	for _, p := range in.Plans {
		l.perTask[p.ProjectID] = p.Mode == models.BillPerTask
	}
	if in.Nodes != nil {
		l.gpuTimes, l.gpuNode, l.unmanaged = map[int64]gpuTimes{}, map[int64]models.LedgerNode{}, unmanagedByGPU(in.Unmanaged)
		for _, n := range in.Nodes {
			for _, g := range n.GPUIDs {
				l.gpuNode[g] = n
			}
		}
	}
	return l
}

// poolWin is the part of the month pool idle counts: until asOf.
func (l *ledger) poolWin() Span { return Span{l.win.Start, l.asOf} }

// classified is one allocation as the ledger sums it: its span held and its classes in the
// month.
type classified struct {
	held  Span
	class Breakdown
}

// addGPU adds one GPU's allocations, classified as cs, to their lines and the bookings, and
// counts the GPU's pool idle.
func (l *ledger) addGPU(gpu int64, as []models.LedgerAllocation, cs []classified) {
	l.spans = l.spans[:0]
	for i := range as {
		l.booked.add(&as[i], cs[i].held)
		if l.add(&as[i], &cs[i]) {
			l.spans = append(l.spans, cs[i].held.Clip(l.win))
		}
	}
	if n, ok := l.gpuNode[gpu]; ok {
		l.gpuTimes[gpu] = gpuTime(n, l.spans, l.unmanaged[gpu], l.poolWin())
	}
}

// add adds allocation a, classified as c, to its line, and reports whether it held any
// second in the month.
func (l *ledger) add(a *models.LedgerAllocation, c *classified) bool {
	if l.perTask[a.ProjectID] {
		l.taskHeld[a.TaskID] += c.held.Seconds()
	}
	if c.class.Nominal() == 0 {
		return false
	}
	i := l.lineOf(lineKey{a.TaskID, a.Spec, a.Overflow}, a.ProjectID)
	ln := l.lines.at(i)
	if r := l.regions[a.NodeID]; r != "" && (ln.region == "" || a.ID < ln.regionOf) {
		ln.region, ln.regionOf = r, a.ID
	}
	ln.held.Add(c.class)
	switch {
	case a.RerunFrom > 0:
		ln.wasted += c.class.Rerun // an earlier attempt's: lost to its rerun, whatever the task's end
	case a.Trial:
		// a trial's run stops at its bound by design: nothing wasted
	default:
		l.held.at(i).add(c.held)
	}
	return true
}

// readTasks reads the tasks the lines name from src (none when nil), then counts the lines'
// wasted seconds, which depend on how their tasks ended, and keeps the held seconds of the
// per-task tasks that ended in the month.
func (l *ledger) readTasks(src TaskSource) error {
	l.tasks = map[int64]*models.LedgerTask{}
	if src != nil {
		ts, err := src(l.first.tasks())
		if err != nil {
			return err
		}
		l.tasks = make(map[int64]*models.LedgerTask, len(ts))
		for i := range ts {
			l.tasks[ts[i].ID] = &ts[i]
		}
	}
	for i := range l.lines.len() {
		ln := l.lines.at(i)
		if t := l.tasks[ln.key.task]; t != nil && IsInterrupted(t.Ending) {
			ln.wasted += l.held.at(i).wasted(l.win, t)
		}
	}
	l.held = chunked[spanSet]{}
	for id := range l.taskHeld {
		if t := l.tasks[id]; t == nil || !endedIn(t, l.win) {
			delete(l.taskHeld, id)
		}
	}
	l.first = taskLines{} // no line is added after the ledger
	return nil
}

// lineOf returns the index of k's line, added for project if new.
func (l *ledger) lineOf(k lineKey, project int64) int {
	i, ok := l.first.get(k.task)
	if !ok {
		l.first.set(k.task, l.lines.len())
	} else {
		for {
			ln := l.lines.at(i)
			if ln.key == k {
				return i
			}
			if ln.next < 0 {
				ln.next = l.lines.len()
				break
			}
			i = ln.next
		}
	}
	l.held.add(spanSet{})
	return l.lines.add(lineAcc{key: k, project: project, next: -1})
}

// byProject returns each project's lines in bill order: by task, spec, overflow last.
// Lines are grouped by project keeping their order, then each project's are sorted.
func (l *ledger) byProject() map[int64][]*lineAcc {
	count := map[int64]int{}
	for i := range l.lines.len() {
		count[l.lines.at(i).project]++
	}
	// Projects in id order, each given its part of one array.
	projects := slices.Sorted(maps.Keys(count))
	start := make(map[int64]int, len(projects))
	next := 0
	for _, p := range projects {
		start[p] = next
		next += count[p]
	}
	lines := make([]*lineAcc, l.lines.len())
	fill := maps.Clone(start)
	for i := range l.lines.len() {
		ln := l.lines.at(i)
		lines[fill[ln.project]] = ln
		fill[ln.project]++
	}
	byLine := func(x, y *lineAcc) int {
		return cmp.Or(cmp.Compare(x.key.task, y.key.task), strings.Compare(x.key.spec, y.key.spec),
			boolCmp(x.key.overflow, y.key.overflow))
	}
	out := make(map[int64][]*lineAcc, len(projects))
	for _, p := range projects {
		i, j := start[p], start[p]+count[p]
		ls := lines[i:j:j]
		slices.SortFunc(ls, byLine)
		out[p] = ls
	}
	return out
}

// heldSpan is the allocation's held interval; an open one ends at asOf, or at its node's
// last-seen time when the node is lost.
func heldSpan(a *models.LedgerAllocation, nodes map[int64]models.LedgerNode, asOf int64) Span {
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

// unmanagedByGPU groups spans of unmanaged use by GPU; one going on (End 0) runs to the end
// of time, for the node's last-seen time to cut.
func unmanagedByGPU(spans []models.UnmanagedSpan) map[int64][]Span {
	out := make(map[int64][]Span)
	for _, u := range spans {
		end := u.End
		if end == 0 {
			end = math.MaxInt64
		}
		out[u.GPUID] = append(out[u.GPUID], Span{u.Start, end})
	}
	return out
}
