package views

import (
	"strconv"

	"kashi/api"
	"kashi/phrase"
)

// TaskStateLabel names a task state in the page's language.
func TaskStateLabel(l phrase.Locale, state api.TaskState) string {
	switch state {
	case api.StateWaitingData:
		return l.T("task.state.waiting-data")
	case api.StateQueued:
		return l.T("task.state.queued")
	case api.StateStarting:
		return l.T("task.state.starting")
	case api.StateRunning:
		return l.T("task.state.running")
	case api.StateSucceeded:
		return l.T("task.state.succeeded")
	case api.StateFailed:
		return l.T("task.state.failed")
	case api.StateCancelled:
		return l.T("task.state.cancelled")
	case api.StateTimedOut:
		return l.T("task.state.timed-out")
	case api.StateReclaimed:
		return l.T("task.state.reclaimed")
	}
	return string(state)
}

// QuotaReasonForTask is the reason a quota request made from a waiting task's page starts
// with.
func QuotaReasonForTask(l phrase.Locale, id int64) string {
	return l.T("task.quota_reason", "#"+strconv.FormatInt(id, 10))
}
