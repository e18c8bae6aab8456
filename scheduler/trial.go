package scheduler

import (
	"context"
	"math"
	"slices"
	"time"
)

// TrialID is the id a task not yet submitted carries in a Try: larger than any stored id, so
// that it sorts after every task submitted before it, as the stored task will.
const TrialID int64 = math.MaxInt64

// Trial is where a task not yet submitted would stand if it were submitted now: its queue
// entry (position, reason and ETAs as the queue view would show them) and, when it would
// start at once, on which spec and whether beyond its project's quota.
type Trial struct {
	QueueEntry
	// Overflow is true when it would start now beyond its project's quota (the project
	// may overflow; the hours are billed as overflow).
	Overflow bool
}

// Try decides snap at now with p added as submitted at now (its ID and SubmittedAt are set
// here), exactly as the queue view decides the stored queue, and returns p's entry. It is
// pure and leaves snap as it was.
func Try(snap Snapshot, p Pending, now time.Time, pol Policy) Trial {
	p.ID, p.SubmittedAt = TrialID, now
	snap.Pending = append(slices.Clip(snap.Pending), p)
	plan := Decide(snap, now, pol)
	var tr Trial
	for _, e := range NewQueueView(snap, plan, now, pol).Entries {
		if e.TaskID == TrialID {
			tr.QueueEntry = e
		}
	}
	for _, pl := range plan.Placements {
		if pl.TaskID == TrialID {
			tr.Overflow = pl.Overflow
		}
	}
	return tr
}

// Try reads a snapshot at now and tries p on it (see the function Try), storing nothing.
func (l *Loop) Try(ctx context.Context, now time.Time, p Pending) (Trial, error) {
	snap, _, err := l.Snapshot(ctx, now)
	if err != nil {
		return Trial{}, err
	}
	return Try(snap, p, now, l.cfg.Policy), nil
}
