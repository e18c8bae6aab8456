package scaler

import (
	"context"
	"fmt"
	"time"

	kfleet "kashi/fleet"
	"kashi/models"
	"kashi/scheduler"
)

// scaleInput is a tick's snapshot with what apply needs beside it.
type scaleInput struct {
	snap Snapshot
	// pools and providers of the pools in the snapshot, by name.
	pools     map[string]models.ConfiguredPool
	providers map[string]kfleet.Provider
	// listed maps the key of each of our machines the providers listed to its id.
	listed     map[string]string
	nodeStates map[int64]models.NodeScaleState
	// decided holds the nodes of the pools in the snapshot.
	decided map[int64]bool
}

// PolicyOf converts a pool's stored configuration into its scaling policy.
func PolicyOf(c models.PoolConfig) Policy {
	sec := func(s int64) time.Duration { return time.Duration(s) * time.Second }
	return Policy{MinNodes: c.MinNodes, MaxNodes: c.MaxNodes, Step: c.Step, ReservedMin: c.ReservedMin,
		ShortLaneNodes: c.ShortLaneNodes,
		BootTimeout:    sec(c.BootTimeoutS), ScaleUpDelay: sec(c.ScaleUpDelayS),
		MemoryHighPct: c.MemoryHighPct, MemoryHighWindow: sec(c.MemoryHighWindowS),
		BootFailureLimit: c.BootFailureLimit, BootBackoffMax: sec(c.BootBackoffMaxS),
		MemoryLowPct: c.MemoryLowPct, MemoryLowWindow: sec(c.MemoryLowWindowS), UnneededTime: sec(c.UnneededS),
		CooldownAfterUp: sec(c.CooldownUpS), CooldownAfterDown: sec(c.CooldownDownS), MaxInFlight: c.MaxInFlight,
		DrainBuffer: sec(c.DrainBufferS), AtMaxAlertAfter: sec(c.AtMaxAlertS),
		Reclaim: ReclaimPolicy{Off: c.ReclaimOff, IdleTime: sec(c.ReclaimIdleS), Grace: sec(c.ReclaimGraceS),
			KeepFor: sec(c.ReclaimKeepForS), MaxKeepsPerDay: c.ReclaimKeepsPerDay, SetupGrace: sec(c.ReclaimSetupGraceS)}}
}

// snapshot reconciles every managed pool and reads the store into DecideScale's input. It
// returns nil when the store cannot be read; pools that fail are left out, with their
// errors.
func (s *Scaler) snapshot(ctx context.Context, now time.Time) (*scaleInput, []error) {
	cps, err := s.store.ConfiguredPools(ctx)
	if err != nil {
		return nil, []error{err}
	}
	nodes, err := s.store.Nodes(ctx)
	if err != nil {
		return nil, []error{err}
	}
	tasks, err := s.store.ActiveTasks(ctx)
	if err != nil {
		return nil, []error{err}
	}
	allocs, err := s.store.OpenAllocations(ctx)
	if err != nil {
		return nil, []error{err}
	}
	nodeStates, err := s.store.NodeScaleStates(ctx)
	if err != nil {
		return nil, []error{err}
	}
	poolStates, err := s.store.PoolScaleStates(ctx)
	if err != nil {
		return nil, []error{err}
	}
	in := &scaleInput{pools: make(map[string]models.ConfiguredPool), providers: make(map[string]kfleet.Provider),
		listed: make(map[string]string), nodeStates: nodeStates, decided: make(map[int64]bool)}
	running := runningOf(tasks)
	onNode := make(map[int64][]Task)
	seen := make(map[[2]int64]bool)
	for _, a := range allocs {
		t, ok := running[a.TaskID]
		if !ok || seen[[2]int64{a.NodeID, a.TaskID}] {
			continue
		}
		seen[[2]int64{a.NodeID, a.TaskID}] = true
		onNode[a.NodeID] = append(onNode[a.NodeID], scaleTask(t))
	}

	var errs []error
	for _, cp := range cps {
		if cp.Config.KubeScaledByCluster() {
			in.pools[cp.Name] = cp
			in.snap.Pools = append(in.snap.Pools, s.clusterPool(cp, nodes))
			continue
		}
		if !cp.Config.Enabled {
			continue
		}
		prov, ok := s.cfg.Providers[cp.Provider]
		if !ok {
			s.alert(ctx, models.AlertInput{Kind: models.AlertScaleFailed, Subject: cp.Name, Pool: cp.Name, Severity: models.SeverityCritical,
				Code: "no_provider", Params: []string{cp.Name, cp.Provider}}, now)
			continue
		}
		mine, err := s.poolNodes(ctx, cp.ID, nodes)
		if err != nil {
			return nil, append(errs, err)
		}
		booting, err := s.reconcile(ctx, in, cp, prov, mine, now)
		if err != nil {
			s.alert(ctx, models.AlertInput{Kind: models.AlertScaleFailed, Subject: cp.Name, Pool: cp.Name,
				Code: "provider_error", Params: []string{cp.Name, err.Error()}}, now)
			errs = append(errs, fmt.Errorf("scheduler: reconcile pool %s: %w", cp.Name, err))
			continue
		}
		sp := Pool{Name: cp.Name, GPUsPerNode: cp.GPUsPerNode, Policy: PolicyOf(cp.Config), Booting: booting}
		for _, n := range mine {
			sp.Nodes = append(sp.Nodes, s.scaleNode(n, onNode[n.ID], nodeStates[n.ID], now))
			in.decided[n.ID] = true
		}
		if cp.Config.Kubernetes() {
			if err := s.kubeOwnNodes(ctx, cp, sp.Nodes); err != nil {
				return nil, append(errs, err)
			}
		}
		pol := sp.Policy.WithDefaults()
		from := now.Add(-max(pol.MemoryHighWindow, pol.MemoryLowWindow) - 2*s.cfg.MemoryBucket)
		mem, err := s.store.PoolMemory(ctx, cp.ID, from, now, s.cfg.MemoryBucket)
		if err != nil {
			return nil, append(errs, err)
		}
		for _, m := range mem {
			sp.Memory = append(sp.Memory, MemoryPoint{At: m.At, UsedPct: m.UsedPct})
		}
		if st, ok := poolStates[cp.ID]; ok {
			sp.LastScaleUp, sp.LastScaleDown = timeOr(st.LastScaleUpAt), timeOr(st.LastScaleDownAt)
			sp.AtMaxSince = timeOr(st.AtMaxSince)
			sp.Boot = BootRun{Failures: st.BootFailures, LastAt: timeOr(st.BootFailedAt), FailingSince: timeOr(st.FailingSince)}
		}
		in.pools[cp.Name], in.providers[cp.Name] = cp, prov
		in.snap.Pools = append(in.snap.Pools, sp)
	}
	if err := s.addDemand(ctx, in, cps, now); err != nil {
		errs = append(errs, err)
	}
	if err := s.addBookings(ctx, in, cps, now); err != nil {
		return nil, append(errs, err)
	}
	if in.snap.Tasks, err = s.idleTasks(ctx, cps, nodes, running, allocs); err != nil {
		return nil, append(errs, err)
	}
	return in, errs
}

// poolNodes returns the nodes of a pool that still have a machine: not removed, and not
// carrying the id of a machine the loop deleted (an agent that outlived its machine's
// intent, whose node is gone with it).
func (s *Scaler) poolNodes(ctx context.Context, poolID int64, nodes []models.NodeGPUs) ([]models.NodeGPUs, error) {
	var mine []models.NodeGPUs
	var ids []string
	for _, n := range nodes {
		if n.PoolID == poolID && n.State != models.NodeRemoved {
			mine = append(mine, n)
			if n.MachineID != "" {
				ids = append(ids, n.MachineID)
			}
		}
	}
	gone, err := s.store.DeletedMachineIDs(ctx, ids)
	if err != nil || len(gone) == 0 {
		return mine, err
	}
	kept := mine[:0]
	for _, n := range mine {
		if !gone[n.MachineID] {
			kept = append(kept, n)
		}
	}
	return kept, nil
}

// scaleNode is a node as DecideScale sees it; a ready node silent too long counts as lost.
func (s *Scaler) scaleNode(n models.NodeGPUs, tasks []Task, st models.NodeScaleState, now time.Time) Node {
	sn := Node{ID: n.ID, MachineID: n.MachineID, State: n.State, Tasks: tasks,
		UnneededSince: timeOr(st.UnneededSince), DrainSince: timeOr(st.DrainSince)}
	if sn.State == NodeStateReady && now.Sub(n.LastSeenAt) > s.cfg.NodeStaleAfter {
		sn.State = NodeStateLost
	}
	return sn
}

// scaleTask gives a running task's expected and latest ends.
func scaleTask(t models.TaskRow) Task {
	st := Task{ID: t.ID, Project: t.Project}
	start := t.SubmittedAt
	if t.StartedAt != nil {
		start = *t.StartedAt
	}
	if est := scheduler.EstRuntime(t.EstGPUHours, t.GPUs); est > 0 {
		st.EstEnd = start.Add(est)
	}
	if t.MaxRuntimeS > 0 {
		st.MaxEnd = start.Add(time.Duration(t.MaxRuntimeS) * time.Second)
	}
	return st
}

// addDemand counts the queue's waiting tasks against the pools by the demand rule (DemandOf,
// DemandPool).
func (s *Scaler) addDemand(ctx context.Context, in *scaleInput, cps []models.ConfiguredPool, now time.Time) error {
	if s.cfg.Queue == nil || len(in.snap.Pools) == 0 {
		return nil
	}
	qs, qp, err := s.cfg.Queue(ctx, now)
	if err != nil {
		return fmt.Errorf("scheduler: queue for scaling: %w", err)
	}
	since, err := s.store.QueuedSince(ctx)
	if err != nil {
		return err
	}
	var refs []PoolRef
	for _, cp := range cps {
		if _, ok := in.pools[cp.Name]; ok {
			refs = append(refs, PoolRef{Name: cp.Name, Spec: cp.Spec, AnySpec: cp.Config.AnySpec})
		}
	}
	at := make(map[string]int)
	for i, p := range in.snap.Pools {
		at[p.Name] = i
	}
	pending := make(map[int64]scheduler.Pending, len(qs.Pending))
	for _, p := range qs.Pending {
		pending[p.ID] = p
	}
	for _, w := range qp.Waiting {
		counts, quota := DemandOf(w.Reason)
		p, ok := pending[w.TaskID]
		if !counts || !ok {
			continue
		}
		r := DemandPool(refs, p.Spec)
		if r < 0 {
			continue
		}
		i, ok := at[refs[r].Name]
		if !ok {
			continue
		}
		d := Demand{TaskID: p.ID, GPUs: p.GPUs, Since: p.SubmittedAt, QuotaBlocked: quota}
		if t, ok := since[p.ID]; ok && t.After(d.Since) {
			d.Since = t
		}
		in.snap.Pools[i].Demand = append(in.snap.Pools[i].Demand, d)
	}
	return nil
}

// ReclaimForecast is, for each running task whose cards are all idle, when from now idle
// reclaim stops it if they stay idle and nobody answers (IdleTask.ReclaimAt), from the pools,
// nodes, active tasks and open allocations the caller read (the scheduler's snapshot) and
// the store's notices and overrides, as the scaling loop reads them. It only reads, so every
// replica may ask.
func (s *Scaler) ReclaimForecast(ctx context.Context, now time.Time, cps []models.ConfiguredPool, nodes []models.NodeGPUs,
	tasks []models.TaskRow, allocs []models.Allocation) (map[int64]time.Time, error) {
	its, err := s.idleTasks(ctx, cps, nodes, runningOf(tasks), allocs)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]time.Time)
	for _, t := range its {
		if at := t.ReclaimAt(now); !at.IsZero() {
			out[t.TaskID] = at
		}
	}
	return out, nil
}

// runningOf are the tasks of tasks that hold their cards (starting or running), by id.
func runningOf(tasks []models.TaskRow) map[int64]models.TaskRow {
	running := make(map[int64]models.TaskRow)
	for _, t := range tasks {
		if t.State == models.TaskStarting || t.State == models.TaskRunning {
			running[t.ID] = t
		}
	}
	return running
}

// idleTasks lists the running tasks for idle reclaim, each with its policy (ReclaimOf the
// pool of its first node and its project's override): a task is idle since the latest time
// one of its cards fell idle, if all are idle. Tasks asked to stop are left out, and so are
// services: their cards wait for requests, so a service is judged by its traffic instead
// (the no-traffic alert names one left unused for a day).
func (s *Scaler) idleTasks(ctx context.Context, cps []models.ConfiguredPool, nodes []models.NodeGPUs,
	running map[int64]models.TaskRow, allocs []models.Allocation) ([]IdleTask, error) {
	reclaims, err := s.store.TaskReclaims(ctx)
	if err != nil {
		return nil, err
	}
	overrides, err := s.store.ReclaimOverrides(ctx)
	if err != nil {
		return nil, err
	}
	configs := make(map[int64]*models.PoolConfig, len(cps))
	for _, cp := range cps {
		configs[cp.ID] = &cp.Config
	}
	idle := make(map[int64]*time.Time)
	poolOf := make(map[int64]int64)
	for _, n := range nodes {
		poolOf[n.ID] = n.PoolID
		for _, g := range n.GPUs {
			idle[g.ID] = g.IdleSince
		}
	}
	var out []IdleTask
	byTask := make(map[int64][]int64)
	firstNode := make(map[int64]int64)
	var order []int64
	for _, a := range allocs {
		if _, ok := byTask[a.TaskID]; !ok {
			order = append(order, a.TaskID)
			firstNode[a.TaskID] = a.NodeID
		}
		byTask[a.TaskID] = append(byTask[a.TaskID], a.GPUID)
	}
	for _, id := range order {
		t, ok := running[id]
		if !ok || t.State != models.TaskRunning || t.StopState != "" || t.Service() {
			continue
		}
		it := IdleTask{TaskID: id, Owner: t.Owner, Policy: ReclaimOf(models.ReclaimSettings{
			Pool: configs[poolOf[firstNode[id]]], Override: overrides[t.ProjectID]})}
		it.Policy.Location = s.cfg.Location
		if t.StartedAt != nil {
			it.StartedAt = *t.StartedAt
		}
		for i, g := range byTask[id] {
			since := idle[g]
			if since == nil {
				it.IdleSince = time.Time{}
				break
			}
			if i == 0 || since.After(it.IdleSince) {
				it.IdleSince = *since
			}
		}
		if r, ok := reclaims[id]; ok {
			it.NoticeAt, it.KeptUntil = timeOr(r.NoticeAt), timeOr(r.KeptUntil)
		}
		out = append(out, it)
	}
	return out, nil
}

func timeOr(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}
