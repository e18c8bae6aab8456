package replay

import (
	"container/heap"
	"fmt"
	"slices"
	"time"

	"kashi/scaler"
)

// scale is one tick of the scaling loop: the snapshot the server's scaler would read of
// the elastic pools, scaler.DecideScale, then its actions applied. A pool's memory use is
// not in traces; the replay takes the share of its ready cards that tasks hold as the pool's
// memory use (a held card counts as full), sampled at every tick. A pool scales by the last
// of its Versions whose time has come.
func (s *sim) scale() {
	now := at(s.now)
	var snap scaler.Snapshot
	tasks := s.tasksByNode()
	for p := range s.pools {
		ps := &s.pools[p]
		if !ps.elastic {
			continue
		}
		for ps.versions < len(ps.Versions) && !ps.Versions[ps.versions].From.After(now) {
			ps.policy = ps.Versions[ps.versions].Scale.Policy()
			ps.versions++
		}
		s.sampleMemory(ps, now)
		sp := scaler.Pool{Name: ps.Name, GPUsPerNode: ps.GPUsPerNode, Policy: ps.policy, Memory: ps.memory,
			LastScaleUp: ps.lastUp, LastScaleDown: ps.lastDown, Demand: s.demand(p), Boot: ps.boot}
		for _, m := range ps.booting {
			sp.Booting = append(sp.Booting, scaler.BootingMachine{Key: m.key, ID: m.key, CreatedAt: at(m.created)})
		}
		for _, n := range s.nodes {
			if n.pool != p || n.state == nodeRemoved {
				continue
			}
			state := scaler.NodeStateReady
			if n.state == nodeDraining {
				state = scaler.NodeStateDraining
			}
			sp.Nodes = append(sp.Nodes, scaler.Node{ID: n.id, MachineID: n.machineID, State: state,
				Tasks: tasks[n.id], UnneededSince: n.unneededSince, DrainSince: n.drainSince})
		}
		snap.Pools = append(snap.Pools, sp)
	}
	plan := scaler.DecideScale(snap, now)
	for _, n := range s.nodes {
		if s.pools[n.pool].elastic && n.state == nodeReady {
			n.unneededSince = plan.Unneeded[n.id]
		}
	}
	for _, sz := range plan.Sizes {
		if p := slices.IndexFunc(s.pools, func(ps poolState) bool { return ps.Name == sz.Pool }); p >= 0 {
			s.pools[p].boot = sz.Boot
		}
	}
	for _, a := range plan.Actions {
		s.apply(a, now)
	}
}

// sampleMemory records the pool's memory use now and drops samples no window reaches.
func (s *sim) sampleMemory(ps *poolState, now time.Time) {
	pct := 0.0
	if ps.readyGPUs > 0 {
		pct = 100 * float64(ps.heldGPUs) / float64(ps.readyGPUs)
	}
	keep := now.Add(-max(ps.policy.MemoryHighWindow, ps.policy.MemoryLowWindow) - 2*time.Duration(s.interval)*time.Second)
	i := 0
	for i < len(ps.memory) && ps.memory[i].At.Before(keep) {
		i++
	}
	ps.memory = append(ps.memory[:0], ps.memory[i:]...)
	ps.memory = append(ps.memory, scaler.MemoryPoint{At: now, UsedPct: pct})
}

// tasksByNode lists the running jobs of every node with the ends they declared.
func (s *sim) tasksByNode() map[int64][]scaler.Task {
	out := make(map[int64][]scaler.Task)
	for _, r := range s.running {
		t := scaler.Task{ID: r.TaskID}
		if r.EstRuntime > 0 {
			t.EstEnd = r.StartedAt.Add(r.EstRuntime)
		}
		if r.MaxRuntime > 0 {
			t.MaxEnd = r.StartedAt.Add(r.MaxRuntime)
		}
		for _, id := range s.runs[r.TaskID-1].nodes {
			out[id] = append(out[id], t)
		}
	}
	return out
}

// demand lists the waiting tasks counted against pool p, as the server's scaler counts
// them: a task of a spec against the first pool (by name) of that spec, a task of any spec
// against the first pool that takes any spec; under kashi only tasks waiting for cards
// (no free cards, behind a reservation, no such capacity yet) or quota (quota-blocked),
// under fifo every waiting job.
func (s *sim) demand(p int) []scaler.Demand {
	var out []scaler.Demand
	add := func(j int32, quota bool) {
		job := &s.jobs[j]
		if s.demandPool(job.Spec) == p {
			out = append(out, scaler.Demand{TaskID: int64(j) + 1, GPUs: job.GPUs, Since: at(job.Submit),
				QuotaBlocked: quota})
		}
	}
	if !s.kashi {
		for _, j := range s.pending {
			add(j, false)
		}
		return out
	}
	for _, w := range s.waiting {
		if counts, quota := scaler.DemandOf(w.Reason); counts && !s.runs[w.TaskID-1].started {
			add(int32(w.TaskID-1), quota)
		}
	}
	return out
}

// demandPool is the elastic pool a task of spec counts against (scaler.DemandPool), or −1.
func (s *sim) demandPool(spec string) int {
	if s.refIdx == nil {
		s.refIdx = []int{}
		for p := range s.pools {
			if ps := &s.pools[p]; ps.elastic {
				s.refs = append(s.refs, scaler.PoolRef{Name: ps.Name, Spec: ps.Spec, AnySpec: ps.AnySpec})
				s.refIdx = append(s.refIdx, p)
			}
		}
	}
	if r := scaler.DemandPool(s.refs, spec); r >= 0 {
		return s.refIdx[r]
	}
	return -1
}

// apply carries out one scaling action on the replay's fleet and records it.
func (s *sim) apply(a scaler.Action, now time.Time) {
	p := slices.IndexFunc(s.pools, func(ps poolState) bool { return ps.Name == a.Pool })
	if p < 0 {
		return
	}
	ps := &s.pools[p]
	switch a.Kind {
	case scaler.ActionScaleUp:
		for range a.Count {
			ps.machines++
			m := &machine{key: fmt.Sprintf("%s-%d", ps.Name, ps.machines), pool: p, created: s.now,
				readyAt: s.now + int64(ps.BootTime/time.Second)}
			ps.booting = append(ps.booting, m)
			s.machines = append(s.machines, m)
			heap.Push(&s.boots, endAt{m.readyAt, len(s.machines) - 1})
		}
		ps.lastUp = now
	case scaler.ActionDrain:
		n := s.nodes[a.NodeID-1]
		s.setState(n, nodeDraining)
		n.drainSince, n.unneededSince = now, time.Time{}
		ps.lastDown = now
	case scaler.ActionUndrain:
		n := s.nodes[a.NodeID-1]
		s.setState(n, nodeReady)
		n.drainSince = time.Time{}
	case scaler.ActionRemove:
		s.setState(s.nodes[a.NodeID-1], nodeRemoved)
	case scaler.ActionDeleteMachine:
		i := slices.IndexFunc(ps.booting, func(m *machine) bool { return m.key == a.MachineKey })
		if i < 0 {
			return
		}
		m := ps.booting[i]
		m.deleted = true
		ps.machineS += s.now - m.created
		ps.booting = slices.Delete(ps.booting, i, i+1)
	default:
		return // idle reclaim is not replayed: traces carry no utilisation
	}
	s.events = append(s.events, ScaleEvent{AtS: s.now, Pool: a.Pool, Kind: string(a.Kind), Count: a.Count,
		NodeID: a.NodeID, From: a.From, To: a.To, Reason: string(a.Reason)})
}

// ready registers a booted machine as a ready node.
func (s *sim) ready(m *machine) {
	if m.deleted {
		return
	}
	ps := &s.pools[m.pool]
	ps.booting = slices.DeleteFunc(ps.booting, func(b *machine) bool { return b == m })
	ps.boot = scaler.BootRun{} // a machine that boots ends the run, as on the server
	s.addNode(m.pool, m.created)
	s.progress = s.now
}
