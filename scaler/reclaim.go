package scaler

import (
	"cmp"
	"fmt"
	"slices"
	"time"
)

// clockText is t's time of day in loc, with the zone: "14:30 Asia/Shanghai".
func clockText(t time.Time, loc *time.Location) string {
	if loc == nil {
		loc = time.UTC
	}
	return t.In(loc).Format("15:04") + " " + loc.String()
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
	// Policy is the task's own: its pool's, under its project's override (ReclaimOf).
	Policy ReclaimPolicy
}

// DecideReclaim decides, for each running task under its own policy, whether its owner is
// warned that its idle cards will be reclaimed, the warning withdrawn, or the task stopped.
// It is pure.
//
// A task's idle time counts from the latest of the moment its cards went idle, its start, and
// the end of the setup grace after its start: cards idle before the task came, and a task
// loading data, are not the task idling. A task kept by its owner is left alone until the keep
// ends. A task whose cards have all been idle for IdleTime gets a notice (ActionIdleNotice); when the notice has had no
// answer for Grace, the task is stopped and marked reclaimed (ActionReclaim,
// ReasonNoAnswer). A notice whose task is busy again is withdrawn (ActionClearNotice). A
// "keep" answer (capped per day by the store, see models.Store.KeepTask) withdraws the
// notice and postpones all this by KeepFor; "release now" stops the task at once, outside
// this function. A task whose policy is off is left alone; its pending notice is withdrawn
// (ReasonReclaimOff).
func DecideReclaim(tasks []IdleTask, now time.Time) []Action {
	ts := slices.Clone(tasks)
	slices.SortFunc(ts, func(a, b IdleTask) int { return cmp.Compare(a.TaskID, b.TaskID) })
	var out []Action
	for _, t := range ts {
		pol := t.Policy.WithDefaults()
		if pol.Off {
			if !t.NoticeAt.IsZero() {
				out = append(out, Action{Kind: ActionClearNotice, TaskID: t.TaskID, Reason: ReasonReclaimOff,
					Detail: fmt.Sprintf("task %d: idle reclaim is off for it", t.TaskID)})
			}
			continue
		}
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
