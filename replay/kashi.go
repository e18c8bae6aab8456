package replay

import (
	"slices"

	"kashi/models"
	"kashi/scheduler"
)

// placeKashi is one pass of the production scheduler over the replay's state: the snapshot
// the server would read (ready nodes schedulable, draining ones not; running and pending
// tasks with what they declared), scheduler.Decide, then the placements applied.
func (s *sim) placeKashi() {
	s.pendBuf = s.pendBuf[:0]
	for _, j := range s.pending {
		job := &s.jobs[j]
		est, maxRT := s.declared(j)
		queue := models.QueueLong
		if maxRT > 0 && maxRT <= models.DefaultTaskLimits.ShortMaxRuntime { // as the store files a submit
			queue = models.QueueShort
		}
		s.pendBuf = append(s.pendBuf, scheduler.Pending{ID: int64(j) + 1, Project: job.Group, Spec: job.Spec,
			Queue: queue, Priority: models.PriorityNormal, GPUs: job.GPUs, SubmittedAt: at(job.Submit),
			EstRuntime: est, MaxRuntime: maxRT, DataReady: true})
	}
	snap := scheduler.Snapshot{Nodes: s.snapNodes(), Running: s.running, Pending: s.pendBuf}
	plan := scheduler.Decide(snap, at(s.now), s.pol)
	s.waiting = plan.Waiting
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
