package tasks

import (
	"time"

	"kashi/phrase"
	"kashi/views"
)

// TaskKeptNotice confirms a "keep" answer: the task keeps its cards until then.
func TaskKeptNotice(l phrase.Locale, id int64, until time.Time) string {
	return l.T("notes.kept", id, until.Format("15:04"))
}

// TaskReleasedNotice confirms a "release now" answer.
func TaskReleasedNotice(l phrase.Locale, id int64) string { return l.T("notes.released", id) }

// KeepCapError says a task was kept as often as a day allows.
func KeepCapError(l phrase.Locale, id int64, perDay int) string {
	return l.T("notes.err.keep_cap", id, perDay)
}

// ReclaimAtText says when a task's idle cards are reclaimed unless kept: at a time, in how
// long; once that time has passed, at the scaling loop's next look.
func ReclaimAtText(l phrase.Locale, at, now time.Time) string {
	if !at.After(now) {
		return l.T("notes.idle.reclaim_due")
	}
	return l.T("notes.idle.reclaim_at", views.EventTime(at, now), l.Duration(at.Sub(now)))
}

// TaskGoneError says the task no longer holds cards to keep or release.
func TaskGoneError(l phrase.Locale, id int64) string { return l.T("notes.err.gone", id) }

// ownerGoneText says why Kashi suspended a schedule of owner (models.OwnerMissing,
// OwnerDisabled, OwnerLeft).
func ownerGoneText(l phrase.Locale, why, owner string) string {
	switch why {
	case "owner-missing":
		return l.T("sched.why.owner_missing", owner)
	case "owner-disabled":
		return l.T("sched.why.owner_disabled", owner)
	}
	return l.T("sched.why.owner_left", owner)
}

// notificationKindText names a notification's kind; an unknown kind is shown as it is.
func notificationKindText(l phrase.Locale, kind string) string {
	switch kind {
	case "idle-notice":
		return l.T("notes.kind.idle_notice")
	case "reclaimed":
		return l.T("notes.kind.reclaimed")
	case "quota-ends":
		return l.T("notes.kind.quota_ends")
	case "budget":
		return l.T("notes.kind.budget")
	case "request-pending":
		return l.T("notes.kind.request_pending")
	case "request-approved":
		return l.T("notes.kind.request_approved")
	case "request-rejected":
		return l.T("notes.kind.request_rejected")
	case "task-started":
		return l.T("notes.kind.task_started")
	case "task-failed-to-start":
		return l.T("notes.kind.task_failed_to_start")
	case "task-failed":
		return l.T("notes.kind.task_failed")
	case "task-reclaimed":
		return l.T("notes.kind.task_reclaimed")
	case "task-released":
		return l.T("notes.kind.task_released")
	case "task-ended":
		return l.T("notes.kind.task_ended")
	case "weekly-report":
		return l.T("notes.kind.weekly_report")
	case "schedule-suspended":
		return l.T("notes.kind.schedule_suspended")
	}
	return kind
}
