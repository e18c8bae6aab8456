package replay

import (
	"slices"
	"time"

	"kashi/models"
	"kashi/scheduler"
)

// placeKashi is one pass of the production scheduler over the replay's state: the snapshot
// the server would read (ready nodes schedulable, draining ones not; running and pending
// tasks with what they declared), scheduler.Decide, then the placements applied.
func (s *sim) placeKashi() {
	s.pendBuf = s.pendBuf[:0]
	// The estimates cost most of a pass and change no placement: they are asked for only
	// while a waiting job has not been shown one, which is all the score reads.
	s.pol.ETADepth = -1
	for _, j := range s.pending {
		if s.runs[j].shown.P50.IsZero() {
			s.pol.ETADepth = 0
		}
		job := &s.jobs[j]
		est, maxRT := s.declared(j)
		queue := models.QueueLong
		switch {
		case s.opt.Estimates == EstimatesDeclared && job.Queue != "":
			queue = job.Queue
		case maxRT > 0 && maxRT <= models.DefaultTaskLimits.ShortMaxRuntime: // as the store files a submit
			queue = models.QueueShort
		}
		prio := models.PriorityNormal
		if s.opt.Estimates == EstimatesDeclared && job.Priority != "" {
			prio = job.Priority
		}
		s.pendBuf = append(s.pendBuf, scheduler.Pending{ID: int64(j) + 1, Project: job.Group, Spec: job.Spec,
			Queue: queue, Priority: prio, GPUs: job.GPUs, SubmittedAt: at(job.Submit),
			EstRuntime: est, MaxRuntime: maxRT, DataReady: true})
	}
	snap := scheduler.Snapshot{Nodes: s.snapNodes(), Running: s.running, Pending: s.pendBuf, Quotas: s.quotas,
		Growth: s.growth(), Runtimes: s.runtimes, Stretch: s.history.Stretch()}
	plan := scheduler.Decide(snap, at(s.now), s.pol)
	s.history.Note(snap, plan, at(s.now))
	s.waiting = plan.Waiting
	s.noteETAs(plan.Waiting)
	if len(plan.Placements) == 0 {
		return
	}
	placed := make(map[int32]bool, len(plan.Placements))
	for _, p := range plan.Placements {
		j := int32(p.TaskID - 1)
		s.start(j, p.GPUIDs)
		placed[j] = true
	}
	s.pending = slices.DeleteFunc(s.pending, func(j int32) bool { return placed[j] })
}

// noteETAs remembers, for each waiting job, the first estimate of start the queue shows.
func (s *sim) noteETAs(waiting []scheduler.Waiting) {
	for _, w := range waiting {
		r := &s.runs[w.TaskID-1]
		r.waited = true
		if r.shown.P50.IsZero() && !w.ETAP50.IsZero() {
			r.shown = ETAShown{At: at(s.now), P50: w.ETAP50, P90: w.ETAP90}
		}
	}
}

// growth is what the elastic pools are expected to add, read as the server's scheduler reads
// it (scheduler.Growth): each booting machine ready a boot after it was asked, and the room
// up to the pool's largest size, asked for the demand after the cooldown since it last grew.
func (s *sim) growth() []scheduler.Growth {
	var out []scheduler.Growth
	for p := range s.pools {
		ps := &s.pools[p]
		if !ps.elastic {
			continue
		}
		g := scheduler.Growth{Spec: ps.Spec, AnySpec: ps.AnySpec, GPUsPerNode: ps.GPUsPerNode, Batch: ps.policy.MaxInFlight,
			Step: ps.policy.Step, Delay: ps.policy.ScaleUpDelay, Boot: ps.BootTime, Every: ps.policy.CooldownAfterUp, LastUp: ps.lastUp,
			Period: time.Duration(s.interval) * time.Second}
		for _, m := range ps.booting {
			g.Booting = append(g.Booting, at(m.created).Add(ps.BootTime))
		}
		live := 0
		for _, n := range s.nodes {
			if n.pool == p && n.state != nodeRemoved {
				live++
			}
		}
		g.Room = max(ps.policy.MaxNodes-live-len(ps.booting), 0)
		out = append(out, g)
	}
	return out
}
