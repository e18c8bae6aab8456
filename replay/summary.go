package replay

import "kashi/billing"

// summarise fills the result from the finished replay; t0 is the first submit.
func (s *sim) summarise(res *Result, t0 int64) {
	s.peak = max(s.peak, s.inUse)
	end := t0
	var used int64
	replayed := 0
	for i, j := range s.jobs {
		r := &s.runs[i]
		if !r.started {
			continue // skipped after its parent failed
		}
		replayed++
		end = max(end, r.end)
		sec := int64(j.GPUs) * j.Duration
		used += sec
		group := j.Group
		if group == "" {
			group = "default"
		}
		res.GPUHoursByGroup[group] += Hours(sec)
		if j.Pipe != nil && j.Pipe.Stage != "" {
			if res.GPUHoursByStage == nil {
				res.GPUHoursByStage = map[string]Hours{}
			}
			res.GPUHoursByStage[j.Pipe.Stage] += Hours(sec)
		}
	}
	if s.deps != nil && s.deps.failed > 0 {
		res.Skipped[SkipParentFailed] += s.deps.failed
	}
	res.Jobs = replayed
	res.TotalGPUHours = Hours(used)
	res.WaitS = waitStats(s.waits)
	var shown []ETAShown
	for i := range s.runs {
		if r := &s.runs[i]; r.waited {
			e := r.shown
			e.Start = at(r.start)
			shown = append(shown, e)
		}
	}
	res.ETA = ScoreETAs(shown, at(end))
	res.PeakGPUsInUse = s.peak
	res.MakespanS = end - t0
	res.ScaleEvents = append(res.ScaleEvents, s.events...)
	res.Cost.Pools = make([]PoolCost, len(s.pools))
	machineS := make([]int64, len(s.pools))
	for p := range s.pools {
		machineS[p] = s.pools[p].machineS
		for _, m := range s.pools[p].booting {
			machineS[p] += end - m.created
		}
	}
	for _, n := range s.nodes {
		until := n.until
		if n.state != nodeRemoved {
			until = end
		}
		machineS[n.pool] += until - n.since
	}
	var provisioned, nodeS int64
	for p, ps := range s.pools {
		gpuS := machineS[p] * int64(ps.GPUsPerNode)
		fen := billing.Amount(gpuS, ps.RateFen)
		res.Cost.Pools[p] = PoolCost{Pool: ps.Name, GPUHours: Hours(gpuS), RateFen: ps.RateFen, Fen: fen}
		res.Cost.TotalFen += fen
		provisioned += gpuS
		nodeS += machineS[p]
	}
	res.NodeHours = Hours(nodeS)
	res.IdleGPUHours = Hours(provisioned - used)
	res.jobs, res.runs = s.jobs, s.runs
	res.nodes = make([]NodeSpan, len(s.nodes))
	for i, n := range s.nodes {
		res.nodes[i] = NodeSpan{ID: n.id, Pool: s.pools[n.pool].Name, Since: n.since}
		if n.state == nodeRemoved {
			res.nodes[i].Until = n.until
		}
	}
}
