package scaler

import (
	"cmp"
	"fmt"
	"slices"
	"time"
)

// ReclaimPolicy is how idle tasks lose their cards. A zero field takes its default.
type ReclaimPolicy struct {
	// Off turns idle reclaim off.
	Off bool
	// IdleTime: a task whose cards all stayed under the idle threshold this long gets a
	// notice.
	IdleTime time.Duration
	// Grace: a notice without an answer this long is followed by the stop.
	Grace time.Duration
	// KeepFor is how long a "keep" answer holds the cards.
	KeepFor time.Duration
	// MaxKeepsPerDay caps the keeps of one task in a day.
	MaxKeepsPerDay int
	// SetupGrace: idle time counts only from this long after a task started (many jobs load
	// data first).
	SetupGrace time.Duration
	// Location is the zone the notices' times are written in, the one pages show (the
	// billing time zone); nil is UTC.
	Location *time.Location
}

// clockText is t's time of day in loc, with the zone: "14:30 Asia/Shanghai".
func clockText(t time.Time, loc *time.Location) string {
	if loc == nil {
		loc = time.UTC
	}
	return t.In(loc).Format("15:04") + " " + loc.String()
}

// WithDefaults returns p with every zero field set to its default.
func (p ReclaimPolicy) WithDefaults() ReclaimPolicy {
	if p.IdleTime <= 0 {
		p.IdleTime = DefaultIdleTime
	}
	if p.Grace <= 0 {
		p.Grace = DefaultReclaimGrace
	}
	if p.KeepFor <= 0 {
		p.KeepFor = DefaultKeepFor
	}
	if p.MaxKeepsPerDay <= 0 {
		p.MaxKeepsPerDay = DefaultMaxKeepsPerDay
	}
	if p.SetupGrace <= 0 {
		p.SetupGrace = DefaultSetupGrace
	}
	return p
}

// IdleTask is a running task as idle reclaim sees it.
type IdleTask struct {
	TaskID int64
	Owner  string
	// StartedAt is when the task started on its cards.
	StartedAt time.Time
	// IdleSince is since when every card of the task has been under the idle threshold;
	// zero while any card is busy. The cards may have been idle before the task came.
	IdleSince time.Time
	// NoticeAt is when the pending notice was sent; zero when none is pending.
	NoticeAt time.Time
	// KeptUntil is the end of the owner's last "keep"; zero if none.
	KeptUntil time.Time
}

// DecideReclaim decides, for each running task, whether its owner is warned that its idle
// cards will be reclaimed, the warning withdrawn, or the task stopped. It is pure.
//
// A task's idle time counts from the latest of the moment its cards went idle, its start, and
// the end of the setup grace after its start: cards idle before the task came, and a task
// loading data, are not the task idling. A task kept by its owner is left alone until the keep
// ends. A task whose cards have all been idle for IdleTime gets a notice (ActionIdleNotice); when the notice has had no
// answer for Grace, the task is stopped and marked reclaimed (ActionReclaim,
// ReasonNoAnswer). A notice whose task is busy again is withdrawn (ActionClearNotice). A
// "keep" answer (capped per day by the store, see models.Store.KeepTask) withdraws the
// notice and postpones all this by KeepFor; "release now" stops the task at once, outside
// this function.
func DecideReclaim(tasks []IdleTask, now time.Time, pol ReclaimPolicy) []Action {
	if pol.Off {
		return nil
	}
	pol = pol.WithDefaults()
	ts := slices.Clone(tasks)
	slices.SortFunc(ts, func(a, b IdleTask) int { return cmp.Compare(a.TaskID, b.TaskID) })
	var out []Action
	for _, t := range ts {
		if now.Before(t.KeptUntil) {
			continue
		}
		since := t.IdleSince
		if !since.IsZero() && !t.StartedAt.IsZero() {
			since = maxTime(since, t.StartedAt.Add(pol.SetupGrace))
		}
		idleFor := now.Sub(since)
		idle := !since.IsZero() && idleFor >= pol.IdleTime
		switch {
		case !idle && !t.NoticeAt.IsZero():
			out = append(out, Action{Kind: ActionClearNotice, TaskID: t.TaskID, Reason: ReasonActiveAgain,
				Detail: fmt.Sprintf("task %d's cards are busy again", t.TaskID)})
		case idle && t.NoticeAt.IsZero():
			out = append(out, Action{Kind: ActionIdleNotice, TaskID: t.TaskID, Reason: ReasonIdleTask,
				Detail: fmt.Sprintf("task %d of %s: cards idle for %s ≥ %s; stopped at %s unless kept", t.TaskID, t.Owner,
					fmtDur(idleFor), fmtDur(pol.IdleTime), clockText(now.Add(pol.Grace), pol.Location))})
		case idle && now.Sub(t.NoticeAt) >= pol.Grace:
			out = append(out, Action{Kind: ActionReclaim, TaskID: t.TaskID, Reason: ReasonNoAnswer,
				Detail: fmt.Sprintf("task %d of %s: cards idle for %s; no answer to the notice of %s within %s", t.TaskID,
					t.Owner, fmtDur(idleFor), clockText(t.NoticeAt, pol.Location), fmtDur(pol.Grace))})
		}
	}
	return out
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
