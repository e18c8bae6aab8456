package scheduler

import (
	"context"
	"slices"
	"time"
)

// ReasonStarting marks a pending task that Decide places now: the loop's next tick starts it.
// Decide never gives it; QueueView does, so that a task about to start is not missing from
// the queue in the moment before the tick.
const ReasonStarting Reason = "starting"

// ReasonNew marks a pending task submitted after the last tick: the scheduler has not looked
// at it yet (the next tick, which the submit woke, will).
const ReasonNew Reason = "new"

// QueueView is the queue at one moment, as the queue page and GET /api/v1/queue show it.
type QueueView struct {
	Now time.Time
	// Entries are the pending tasks lane by lane (short first), each lane in queue order:
	// first the tasks Decide places now (ReasonStarting, position 0), then the waiting tasks
	// by Position.
	Entries []QueueEntry
	// Capacity is the free capacity per spec (see FreeCapacity) once the tasks placed now
	// hold their cards: what is left for the next task.
	Capacity []SpecCapacity
	// Use is the cards each project holds once the tasks placed now hold theirs (see
	// QuotaUse), by project name: what the pages show against the project's quotas.
	Use map[string]Use
	// Bookings are the bookings holding cards now, with the cards their projects use and
	// what they keep from others (see BookingHolds).
	Bookings []BookingHold
}

// QueueEntry is one pending task of a QueueView.
type QueueEntry struct {
	Waiting
	// Starting is true for a task Decide places now. Its Reason is ReasonStarting, its
	// Position 0, its ETAs now and its Spec that of the cards it gets.
	Starting bool
}

// String explains the entry in one English sentence, as Waiting.String does.
func (e QueueEntry) String() string {
	if e.Starting {
		return "starting: cards are free for it"
	}
	return e.Waiting.String()
}

// Queue is the queue as the last tick of this loop left it, so a page costs no scheduling
// pass; tasks submitted since are not in it (callers show them with ReasonNew). A process
// that has not ticked (a replica that does not hold the leader lock, or before the first
// tick) reads a snapshot at now and decides over it, storing nothing. Both are safe to call
// from any number of requests at once.
func (l *Loop) Queue(ctx context.Context, now time.Time) (QueueView, error) {
	if v := l.view.Load(); v != nil {
		return *v, nil
	}
	snap, _, err := l.Snapshot(ctx, now)
	if err != nil {
		return QueueView{}, err
	}
	return NewQueueView(snap, Decide(snap, now, l.cfg.Policy), now, l.cfg.Policy), nil
}

// keepView keeps the queue that a tick's plan leaves for Queue.
func (l *Loop) keepView(snap Snapshot, plan Plan, now time.Time) {
	v := NewQueueView(snap, plan, now, l.cfg.Policy)
	l.view.Store(&v)
}

// NewQueueView lays out plan, the outcome of Decide(snap, now, pol), lane by lane.
func NewQueueView(snap Snapshot, plan Plan, now time.Time, pol Policy) QueueView {
	pol = pol.normalized()
	lane := make(map[int64]string, len(plan.Placements))
	project := make(map[int64]string, len(plan.Placements))
	if len(plan.Placements) > 0 {
		for i := range snap.Pending {
			lane[snap.Pending[i].ID] = laneNames[displayLane(&snap.Pending[i])]
			project[snap.Pending[i].ID] = snap.Pending[i].Project
		}
	}
	after := snap
	after.Running = slices.Clip(snap.Running)
	for _, p := range plan.Placements {
		after.Running = append(after.Running, Running{TaskID: p.TaskID, Project: project[p.TaskID], GPUIDs: p.GPUIDs})
	}
	v := QueueView{Now: now, Capacity: FreeCapacity(after, now), Use: QuotaUse(after), Bookings: BookingHolds(after, now),
		Entries: make([]QueueEntry, 0, len(plan.Placements)+len(plan.Waiting))}
	for _, name := range laneNames {
		for _, p := range plan.Placements {
			if lane[p.TaskID] != name {
				continue
			}
			v.Entries = append(v.Entries, QueueEntry{Starting: true, Waiting: Waiting{TaskID: p.TaskID, Lane: name,
				Reason: ReasonStarting, Spec: p.Spec, ETAP50: now, ETAP90: now, PlaceSpec: p.Spec, PlaceRegion: p.Region,
				PlaceWhy: p.Why}})
		}
		for _, w := range plan.Waiting {
			if w.Lane == name {
				v.Entries = append(v.Entries, QueueEntry{Waiting: w})
			}
		}
	}
	return v
}
