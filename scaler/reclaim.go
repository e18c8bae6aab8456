package scaler

import (
	"cmp"
	"kashi/phrase"
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
	// KeptUntil is the end of the last "keep" (its owner's or a lead's); zero if none.
	KeptUntil time.Time
	// Policy is the task's own: its pool's, under its project's override (ReclaimOf).
	Policy ReclaimPolicy
}

// DecideReclaim decides, for each running task under its own policy, whether its owner and
// its project's leads are warned that its idle cards will be reclaimed, the warning
// withdrawn, or the task stopped. It is pure.
//
// A task's idle time counts from the latest of the moment its cards went idle, its start, and
// the end of the setup grace after its start: cards idle before the task came, and a task
// loading data, are not the task idling. A task kept by its owner or a lead is left alone
// until the keep ends. A task whose cards have all been idle for IdleTime gets a notice (ActionIdleNotice); when the notice has had no
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
					Detail: phrase.Of(phrase.New("reclaim_off", phrase.ID(t.TaskID)))})
			}
			continue
		}
		if now.Before(t.KeptUntil) {
			continue
		}
		since := t.idleFrom(pol)
		idleFor := now.Sub(since)
		idle := !since.IsZero() && idleFor >= pol.IdleTime
		switch {
		case !idle && !t.NoticeAt.IsZero():
			out = append(out, Action{Kind: ActionClearNotice, TaskID: t.TaskID, Reason: ReasonActiveAgain,
				Detail: phrase.Of(phrase.New("cards_busy", phrase.ID(t.TaskID)))})
		case idle && t.NoticeAt.IsZero():
			out = append(out, Action{Kind: ActionIdleNotice, TaskID: t.TaskID, Reason: ReasonIdleTask,
				Detail: phrase.Of(phrase.New("task_of", phrase.ID(t.TaskID), phrase.S(t.Owner)),
					phrase.New("cards_idle", phrase.Dur(idleFor), phrase.Dur(pol.IdleTime)),
					phrase.New("stop_at", phrase.S(clockText(now.Add(pol.Grace), pol.Location))))})
		case idle && now.Sub(t.NoticeAt) >= pol.Grace:
			out = append(out, Action{Kind: ActionReclaim, TaskID: t.TaskID, Reason: ReasonNoAnswer,
				Detail: phrase.Of(phrase.New("task_of", phrase.ID(t.TaskID), phrase.S(t.Owner)),
					phrase.New("idle_for", phrase.Dur(idleFor)),
					phrase.New("no_answer", phrase.S(clockText(t.NoticeAt, pol.Location)), phrase.Dur(pol.Grace)))})
		}
	}
	return out
}

// idleFrom is since when t's idle time counts under pol: the latest of when its cards went
// idle and the end of the setup grace after its start; zero while a card is busy.
func (t IdleTask) idleFrom(pol ReclaimPolicy) time.Time {
	since := t.IdleSince
	if !since.IsZero() && !t.StartedAt.IsZero() {
		since = maxTime(since, t.StartedAt.Add(pol.SetupGrace))
	}
	return since
}

// ReclaimAt is when, from now, DecideReclaim stops t if its cards stay idle and nobody
// answers: its pending notice's time plus the grace (a notice stands while the cards have
// been idle the policy's time), else the moment its idle time reaches
// the policy's (no earlier than the end of a keep, nor than now) plus the grace; now when
// that has passed. Zero when it would not: a card is busy, or the policy is off. The queue's
// estimates count it as the task's likely end.
func (t IdleTask) ReclaimAt(now time.Time) time.Time {
	pol := t.Policy.WithDefaults()
	since := t.idleFrom(pol)
	if pol.Off || since.IsZero() {
		return time.Time{}
	}
	notice := t.NoticeAt
	if now.Sub(since) < pol.IdleTime {
		notice = time.Time{} // a notice on cards idle less than the policy's time is withdrawn
	}
	if notice.IsZero() {
		notice = maxTime(maxTime(since.Add(pol.IdleTime), t.KeptUntil), now)
	}
	return maxTime(notice.Add(pol.Grace), now)
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
