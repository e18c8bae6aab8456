package scheduler

import "math"

// Services queue in the service lane: placed by the same passes as long tasks (never on a
// short-only node, in the long lane's order of priority, fairness and submit time), shown
// apart with their own positions, and held to their project's service cap
// (QuotaState.MaxServiceGPUs) besides every limit of the project's quota. The cap is hard:
// overflow does not pass it. A service waiting on it has ReasonQuota with
// DetailServiceLimit.

// laneService is the service lane's index among laneNames; Decide places its tasks as
// laneLong's.
const laneService = 2

// displayLane is the lane a pending task is shown in.
func displayLane(t *Pending) uint8 {
	if t.Service {
		return laneService
	}
	return uint8(laneOf(t))
}

// svcCap is one project's cap on its services' cards: all specs together (max, -1 for
// none) and per spec name (limit, -1 for none), against what its services hold.
type svcCap struct {
	max, held     int32
	limit, bySpec []int32
}

// initServiceCaps reads the projects' service caps and what their running services hold;
// d.svc stays nil when no project has one.
func (d *decider) initServiceCaps() {
	for i, name := range d.q.projName {
		qs, ok := d.snap.Quotas[name]
		if !ok || qs.MaxServiceGPUs <= 0 && len(qs.MaxServiceGPUsBySpec) == 0 {
			continue
		}
		if d.svc == nil {
			d.svc = make([]svcCap, len(d.q.projName))
			for p := range d.svc {
				d.svc[p].max = -1
			}
		}
		c := &d.svc[i]
		if qs.MaxServiceGPUs > 0 {
			c.max = int32(min(qs.MaxServiceGPUs, math.MaxInt32))
		}
		c.limit, c.bySpec = make([]int32, len(d.f.names)), make([]int32, len(d.f.names))
		for s := range c.limit {
			c.limit[s] = -1
		}
		for spec, lim := range qs.MaxServiceGPUsBySpec {
			if places, ok := d.f.byName[spec]; ok && lim > 0 {
				c.limit[d.f.specs[places[0]].nameIdx] = int32(min(lim, math.MaxInt32))
			}
		}
	}
	if d.svc == nil {
		return
	}
	for i := range d.snap.Running {
		r := &d.snap.Running[i]
		if p, ok := d.q.projIdx[r.Project]; ok && r.Service && d.svc[p].limit != nil {
			for _, g := range r.GPUIDs {
				if s, ok := d.f.specOfGPU[g]; ok {
					d.holdService(p, s, 1)
				}
			}
		}
	}
}

// withinServiceCap keeps in d.cand the places where g more service cards stay within
// project p's service cap, and reports whether any is left.
func (d *decider) withinServiceCap(p int32, g int32) bool {
	if d.svc == nil || d.svc[p].limit == nil {
		return true
	}
	c := &d.svc[p]
	if c.max >= 0 && c.held+g > c.max {
		d.cand = d.cand[:0]
		return false
	}
	n := 0
	for _, s := range d.cand {
		if ns := d.f.specs[s].nameIdx; c.limit[ns] < 0 || c.bySpec[ns]+g <= c.limit[ns] {
			d.cand[n] = s
			n++
		}
	}
	d.cand = d.cand[:n]
	return n > 0
}

// holdService counts g cards of place s for project p's services.
func (d *decider) holdService(p int32, s int32, g int32) {
	if d.svc == nil || d.svc[p].limit == nil {
		return
	}
	d.svc[p].held += g
	d.svc[p].bySpec[d.f.specs[s].nameIdx] += g
}
