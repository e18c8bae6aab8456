package scheduler

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"kashi/models"
)

// Store is what the loop needs of models.Store.
type Store interface {
	Nodes(ctx context.Context) ([]models.NodeGPUs, error)
	ActiveTasks(ctx context.Context) ([]models.TaskRow, error)
	OpenAllocations(ctx context.Context) ([]models.Allocation, error)
	AllocationsSince(ctx context.Context, since time.Time) ([]models.Allocation, error)
	PlaceTasks(ctx context.Context, ps []models.Placement, now time.Time) (int, error)
	RequestStop(ctx context.Context, id int64, state, reason string, now time.Time) error
	SetWaitReasons(ctx context.Context, reasons map[int64]string) error
	MarkLostNodes(ctx context.Context, ids []int64, cutoff, now time.Time) ([]models.LostNode, error)
	Quotas(ctx context.Context, projectID int64) ([]models.Quota, error)
	UsageSeconds(ctx context.Context, since, now time.Time) (map[int64]map[string]int64, error)
	ProjectNames(ctx context.Context) (map[int64]string, error)
	ConfiguredPools(ctx context.Context) ([]models.ConfiguredPool, error)
	Reservations(ctx context.Context, from, to time.Time) ([]models.ReservationRow, error)
	Machines(ctx context.Context, poolID int64) ([]models.Machine, error)
	PoolBoots(ctx context.Context, poolID int64, n int) ([]time.Duration, error)
	PoolScaleStates(ctx context.Context) (map[int64]models.PoolScaleState, error)
	TaskSpans(ctx context.Context, since, until time.Time) ([]models.TaskSpan, error)
}

// LoopConfig configures the scheduler loop.
type LoopConfig struct {
	Policy Policy
	// NodeStaleAfter: a node silent this long (clock time) takes no new task.
	NodeStaleAfter time.Duration
	// NodeLostAfter: a node silent this long is given up: its tasks end failed and their
	// allocations close at its last sign of life. Zero means five times NodeStaleAfter, at
	// least 10 minutes.
	NodeLostAfter time.Duration
	// FairnessHalfLife is the half-life of the usage that orders projects within a priority.
	FairnessHalfLife time.Duration
	// ScalePeriod is the scaling loop's period (clock time), which the ETAs count a new
	// machine's ask by (see Growth).
	ScalePeriod time.Duration
	// ReclaimForecast gives, for each running task whose cards are all idle, when idle
	// reclaim stops it if they stay idle (scaler.Scaler.ReclaimForecast), from the store as
	// the snapshot read it; nil for none.
	ReclaimForecast func(ctx context.Context, now time.Time, pools []models.ConfiguredPool, nodes []models.NodeGPUs, tasks []models.TaskRow, open []models.Allocation) (map[int64]time.Time, error)
	Now             func() time.Time
	Logger          *slog.Logger
}

// Loop is the queue's control loop: each RunOnce snapshots the store, decides with Decide, and
// applies the plan. The server runs it with package loop; handlers wake it after every change.
type Loop struct {
	store Store
	cfg   LoopConfig
	fair  fairCache
	runs  runtimesCache
	idle  reclaimCache
	// started is the time of the first snapshot: nodes are judged lost only after the loop
	// has run for NodeLostAfter, so agents get the chance to report after a server restart.
	started time.Time
	// view is the queue as the last tick left it (see Queue).
	view atomic.Pointer[QueueView]
	// history is how the ticks' estimates fared, which calibrates the next (see ETAHistory).
	history *ETAHistory
}

// fairCache keeps the projects' decayed usage for a minute of clock time: reading the
// allocations of the last days on every tick would cost more than the tick itself, and
// fairness moves slowly.
type fairCache struct {
	mu    sync.Mutex
	at    time.Time
	usage map[string]Project
}

// fairnessRefresh is how long, in clock time, the decayed usage is reused.
const fairnessRefresh = time.Minute

// NewLoop returns a loop over store.
func NewLoop(store Store, cfg LoopConfig) *Loop {
	if cfg.NodeStaleAfter <= 0 {
		cfg.NodeStaleAfter = 2 * time.Minute
	}
	if cfg.NodeLostAfter <= 0 {
		cfg.NodeLostAfter = max(10*time.Minute, 5*cfg.NodeStaleAfter)
	}
	if cfg.FairnessHalfLife <= 0 {
		cfg.FairnessHalfLife = 24 * time.Hour
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &Loop{store: store, cfg: cfg, history: NewETAHistory()}
}

// NodeLostAfter is how long a node is silent before the loop gives it up and closes its
// allocations at its last sign of life: so long after the time it records may an
// allocation's end be written.
func (l *Loop) NodeLostAfter() time.Duration { return l.cfg.NodeLostAfter }

// Tick is one RunOnce at the clock's now, as package loop calls it.
func (l *Loop) Tick(ctx context.Context) error {
	_, err := l.RunOnce(ctx, l.cfg.Now())
	return err
}

// RunOnce is one tick at now, in three phases:
//  1. snapshot: read nodes, tasks and open allocations;
//  2. decide: Decide orders, gates and places the queue, and names the lost nodes and the
//     tasks past their max runtime (pure);
//  3. apply and record (see apply).
//
// The tick's queue view is kept for the pages (see Queue).
func (l *Loop) RunOnce(ctx context.Context, now time.Time) (Plan, error) {
	defer prometheus.NewTimer(tickSeconds).ObserveDuration()
	snap, reasons, err := l.Snapshot(ctx, now)
	if err != nil {
		return Plan{}, err
	}
	plan := Decide(snap, now, l.cfg.Policy)
	if err := l.apply(ctx, snap, plan, reasons, now); err != nil {
		return plan, err
	}
	l.history.Note(snap, plan, now)
	l.keepView(snap, plan, now)
	return plan, nil
}

// apply carries out a plan: gives up the lost nodes (their tasks end failed), asks nodes to
// stop tasks past their max runtime (they end timed-out), places the tasks in one
// transaction, then stores why the rest wait. A placement or stop that lost a race (the task
// was cancelled or ended meanwhile) is skipped; the next tick sees the new state.
func (l *Loop) apply(ctx context.Context, snap Snapshot, plan Plan, reasons map[int64]string, now time.Time) error {
	if len(plan.LostNodes) > 0 {
		lost, err := l.store.MarkLostNodes(ctx, plan.LostNodes, snap.LostBefore, now)
		for _, n := range lost {
			l.cfg.Logger.Warn("node lost", "node", n.Hostname, "last_seen", n.LastSeen, "tasks_ended", n.Tasks)
		}
		if err != nil {
			return err
		}
	}
	for _, st := range plan.Stops {
		err := l.store.RequestStop(ctx, st.TaskID, models.TaskTimedOut, "max runtime "+st.MaxRuntime.String()+" reached", now)
		if err != nil && !errors.Is(err, models.ErrConflict) {
			return err
		}
	}
	projectOf := make(map[int64]int64, len(plan.Placements))
	for _, t := range snap.Pending {
		projectOf[t.ID] = t.ProjectID
	}
	ps := make([]models.Placement, len(plan.Placements))
	for i, p := range plan.Placements {
		why := "placed on " + fmt.Sprint(p.NodeIDs)
		if p.Backfill {
			why += " (backfill)"
		}
		if p.Overflow {
			why += " (over quota)"
		}
		ps[i] = models.Placement{TaskID: p.TaskID, ProjectID: projectOf[p.TaskID], GPUIDs: p.GPUIDs, Overflow: p.Overflow, Reason: why}
	}
	placed, err := l.store.PlaceTasks(ctx, ps, now)
	if err != nil {
		return err
	}
	tasksPlaced.Add(float64(placed))
	observeWaits(snap, plan, now)
	changed := make(map[int64]string)
	for _, w := range plan.Waiting {
		if r := w.String(); reasons[w.TaskID] != r {
			changed[w.TaskID] = r
		}
	}
	if len(changed) > 0 {
		return l.store.SetWaitReasons(ctx, changed)
	}
	return nil
}

// Snapshot reads the store into Decide's input, with each waiting task's stored reason.
func (l *Loop) Snapshot(ctx context.Context, now time.Time) (Snapshot, map[int64]string, error) {
	nodes, err := l.store.Nodes(ctx)
	if err != nil {
		return Snapshot{}, nil, err
	}
	tasks, err := l.store.ActiveTasks(ctx)
	if err != nil {
		return Snapshot{}, nil, err
	}
	open, err := l.store.OpenAllocations(ctx)
	if err != nil {
		return Snapshot{}, nil, err
	}
	fairness, err := l.fairness(ctx, now)
	if err != nil {
		return Snapshot{}, nil, err
	}
	pools, err := l.store.ConfiguredPools(ctx)
	if err != nil {
		return Snapshot{}, nil, err
	}
	quotas, err := l.quotas(ctx, now, pools)
	if err != nil {
		return Snapshot{}, nil, err
	}
	snap := Snapshot{Projects: fairness, Quotas: quotas}
	if snap.Bookings, err = l.bookings(ctx, pools, now); err != nil {
		return Snapshot{}, nil, err
	}
	if snap.Growth, err = l.growth(ctx, pools, nodes); err != nil {
		return Snapshot{}, nil, err
	}
	if snap.Runtimes, err = l.runtimes(ctx, now); err != nil {
		return Snapshot{}, nil, err
	}
	snap.Stretch = l.history.Stretch()
	if l.started.IsZero() {
		l.started = now
	}
	if now.Sub(l.started) >= l.cfg.NodeLostAfter {
		snap.LostBefore = now.Add(-l.cfg.NodeLostAfter)
	}
	region := make(map[string]string, len(pools))
	attrs := make(map[string]models.PoolAttributes, len(pools))
	for _, p := range pools {
		region[p.Name], attrs[p.Name] = p.Config.Region, p.Config.Attributes()
	}
	cards := 0
	for _, n := range nodes {
		cards += len(n.GPUs)
	}
	snap.Nodes = make([]Node, 0, len(nodes))
	gpus := make([]GPU, 0, cards) // every node's cards, one part each
	for _, n := range nodes {
		a := attrs[n.Pool]
		sn := Node{ID: n.ID, Pool: n.Pool, Spec: n.Spec, Region: region[n.Pool],
			Schedulable: n.State == models.NodeReady && now.Sub(n.LastSeenAt) <= l.cfg.NodeStaleAfter,
			Live:        n.State == models.NodeReady || n.State == models.NodeDraining, LastSeen: n.LastSeenAt,
			InterNodeGbps: a.InterNodeGbps(), NoInterNode: a.NoInterNode(), StorageMBps: a.StorageMBps()}
		first := len(gpus)
		for _, g := range n.GPUs {
			gpus = append(gpus, GPU{ID: g.ID, Index: g.Index, Outside: g.UnmanagedSince != nil})
		}
		sn.GPUs = gpus[first:len(gpus):len(gpus)]
		snap.Nodes = append(snap.Nodes, sn)
	}
	reserve := make(map[string]int)
	for _, p := range pools {
		reserve[p.Name] = p.Config.ShortLaneNodes
	}
	MarkShortOnly(snap.Nodes, reserve)
	held := make(map[int64][]int64)
	ids := make([]int64, len(open))
	for first := 0; first < len(open); { // in task order, each task's cards are one part of ids
		end := first
		for end < len(open) && open[end].TaskID == open[first].TaskID {
			ids[end] = open[end].GPUID
			end++
		}
		if t := open[first].TaskID; held[t] == nil {
			held[t] = ids[first:end:end]
		} else {
			held[t] = append(held[t], ids[first:end]...) // a task met twice (not in task order)
		}
		first = end
	}
	reclaimAt, err := l.reclaims(ctx, now, pools, nodes, tasks, open)
	if err != nil {
		return Snapshot{}, nil, err
	}
	running := 0
	for _, t := range tasks {
		if t.State == models.TaskStarting || t.State == models.TaskRunning {
			running++
		}
	}
	snap.Running = make([]Running, 0, running)
	snap.Pending = make([]Pending, 0, len(tasks)-running)
	reasons := make(map[int64]string, len(tasks)-running)
	for _, t := range tasks {
		est := EstRuntime(t.EstGPUHours, t.GPUs)
		maxRT := time.Duration(t.MaxRuntimeS) * time.Second
		switch t.State {
		case models.TaskStarting, models.TaskRunning:
			started := t.SubmittedAt
			if t.StartedAt != nil {
				started = *t.StartedAt
			}
			snap.Running = append(snap.Running, Running{TaskID: t.ID, Project: t.Project, GPUIDs: held[t.ID],
				StartedAt: started, EstRuntime: est, MaxRuntime: maxRT, Service: t.Service(), ReclaimAt: reclaimAt[t.ID]})
		default:
			reasons[t.ID] = t.Reason
			snap.Pending = append(snap.Pending, Pending{ID: t.ID, Project: t.Project, ProjectID: t.ProjectID, Spec: t.Spec,
				Specs: t.SpecList(), Regions: t.RegionList(), DataRegion: t.DataRegion(), Queue: t.Queue,
				Priority: t.Priority, GPUs: t.GPUs, SubmittedAt: t.SubmittedAt, EstRuntime: est, MaxRuntime: maxRT,
				DataReady: t.DataReady && t.State == models.TaskQueued, Deferrable: t.Deferrable, Service: t.Service(),
				Rerun: t.Attempt > 1, MinInterNodeGbps: t.MinInterNodeGbps, MinStorageMBps: t.MinStorageMBps,
				AllowNoInterconnect: t.AllowNoInterconnect})
		}
	}
	return snap, reasons, nil
}

// quotas reads the quotas, this month's usage and the pools' rules for projects without a
// quota into Decide's quota states; nil when no project has a quota and no pool restricts
// projects without one.
func (l *Loop) quotas(ctx context.Context, now time.Time, pools []models.ConfiguredPool) (map[string]QuotaState, error) {
	quotas, err := l.store.Quotas(ctx, 0)
	if err != nil {
		return nil, err
	}
	rules := models.NoQuotaRules(pools)
	restricts := false
	for _, r := range rules {
		restricts = restricts || r.Cap() >= 0
	}
	if len(quotas) == 0 && !restricts {
		return nil, nil
	}
	usage, err := l.store.UsageSeconds(ctx, models.MonthStart(now, l.cfg.Policy.Location), now)
	if err != nil {
		return nil, err
	}
	names, err := l.store.ProjectNames(ctx)
	if err != nil {
		return nil, err
	}
	return QuotaStates(quotas, usage, names, rules, now), nil
}

// fairness returns each project's decayed card-hours, recomputed at most once a minute of
// clock time: every held card-second counts with weight 2^(-age/half-life), age measured from
// the end of the allocation (now for open ones).
func (l *Loop) fairness(ctx context.Context, now time.Time) (map[string]Project, error) {
	l.fair.mu.Lock()
	defer l.fair.mu.Unlock()
	if l.fair.usage != nil && !now.Before(l.fair.at) && now.Sub(l.fair.at) < fairnessRefresh {
		return l.fair.usage, nil
	}
	allocs, err := l.store.AllocationsSince(ctx, now.Add(-4*l.cfg.FairnessHalfLife))
	if err != nil {
		return nil, err
	}
	names, err := l.store.ProjectNames(ctx)
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]float64)
	for _, a := range allocs {
		end := now
		if a.EndedAt != nil {
			end = *a.EndedAt
		}
		hours := end.Sub(a.StartedAt).Hours()
		if hours <= 0 {
			continue
		}
		age := now.Sub(end).Hours()
		byID[a.ProjectID] += hours * math.Exp2(-age/l.cfg.FairnessHalfLife.Hours())
	}
	usage := make(map[string]Project, len(byID))
	for id, u := range byID {
		usage[names[id]] = Project{Usage: u}
	}
	l.fair.usage, l.fair.at = usage, now
	return usage, nil
}
