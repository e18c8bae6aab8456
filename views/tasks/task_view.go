package tasks

import (
	"net/url"
	"strconv"
	"strings"
	"time"

	"kashi/api"
	"kashi/phrase"
	"kashi/views"
)

// Helpers of the task pages' templates.

// cancelConfirm asks before cancelling a task; a running task loses its work.
func cancelConfirm(l phrase.Locale, t TaskView) string {
	if t.State == api.StateRunning || t.State == api.StateStarting {
		return l.T("task.cancel_confirm_running", t.ID, t.GPUs)
	}
	return l.T("task.cancel_confirm", t.ID)
}

// stateText names a task's state; a task ended (or ending) reclaimed because its cards were
// released in answer to its idle notice is "released".
func stateText(l phrase.Locale, state api.TaskState, released bool) string {
	if released && state == api.StateReclaimed {
		return l.T("task.state.released")
	}
	return views.TaskStateLabel(l, state)
}

// stateClass is the classes of a task's state badge.
func stateClass(state api.TaskState, released bool) string {
	if released && state == api.StateReclaimed {
		return "badge st st-released"
	}
	return "badge st st-" + string(state)
}

// cardHoursOrZero is cardHours with "0" for none.
func cardHoursOrZero(l phrase.Locale, h float64) string {
	if h*10 < 0.5 {
		return "0"
	}
	return cardHours(l, h)
}

// cardSpan says since when a card is held, or from when until when it was.
func cardSpan(l phrase.Locale, c TaskCardView, now time.Time) string {
	if c.EndedAt.IsZero() {
		return l.T("task.card.since", views.EventTime(c.StartedAt, now), l.Duration(now.Sub(c.StartedAt)))
	}
	return l.T("task.card.held", views.EventTime(c.StartedAt, now), l.Duration(c.EndedAt.Sub(c.StartedAt)))
}

// commandText is a task's argv, one argument per line.
func commandText(argv []string) string { return strings.Join(argv, "\n") }

// taskRuntime is how long a task ran (so far); "—" before it starts.
func taskRuntime(l phrase.Locale, t TaskView, now time.Time) string {
	switch {
	case t.StartedAt.IsZero():
		return "—"
	case t.EndedAt.IsZero():
		return l.Duration(now.Sub(t.StartedAt))
	}
	return l.Duration(t.EndedAt.Sub(t.StartedAt))
}

// tasksPageURL is the tasks page with filter f at page n.
func tasksPageURL(f TaskListFilter, n int) string {
	q := url.Values{}
	if f.Mine {
		q.Set("mine", "1")
	}
	for k, v := range map[string]string{"project": f.Project, "state": string(f.State), "spec": f.Spec, "from": f.From, "to": f.To} {
		if v != "" {
			q.Set(k, v)
		}
	}
	q.Set("page", strconv.Itoa(n))
	return "/tasks?" + q.Encode()
}

// dataCheckAnswer says when a waiting task's data check last answered, or that it has not.
func dataCheckAnswer(l phrase.Locale, t TaskView, now time.Time) string {
	if t.DataCheckedAt.IsZero() {
		return l.T("task.data_check.no_answer")
	}
	return l.T("task.data_check.answered", views.EventTime(t.DataCheckedAt, now))
}

// attemptSpan is when an attempt ran: from its start to its end, or that it runs, or waits
// for its cards.
func attemptSpan(l phrase.Locale, a AttemptView, now time.Time) string {
	switch {
	case a.StartedAt.IsZero():
		return l.T("task.attempt_waiting")
	case a.EndedAt.IsZero():
		return l.T("task.attempt_running", views.FullTime(a.StartedAt, now))
	}
	return l.T("task.attempt_ran", views.FullTime(a.StartedAt, now), views.FullTime(a.EndedAt, now))
}

// attemptEnding is how an attempt ended, and why when the viewer may read it ("finished; exit
// code 0"; a lost node's reason says it alone: "node n1 lost (last seen …)"); "current"
// while it has not ended.
func attemptEnding(l phrase.Locale, a AttemptView) string {
	if a.Ending == "" {
		return l.T("task.attempt_now")
	}
	if a.Ending == "lost" && a.Reason != "" {
		return TaskReasonText(l, a.Reason)
	}
	key := "bill.ending." + strings.ReplaceAll(a.Ending, "-", "_")
	text := a.Ending
	if l.Has(key) {
		text = l.T(key)
	}
	if a.Reason == "" {
		return text
	}
	return text + l.T("say.sep") + TaskReasonText(l, a.Reason)
}

// taskNeeds says what the task asks of the pools it runs on, one phrase each; none for
// nothing.
func taskNeeds(l phrase.Locale, t TaskView) []string {
	var out []string
	if t.MinInterNodeGbps > 0 {
		out = append(out, l.T("task.needs_inter", l.Int(t.MinInterNodeGbps)))
	}
	if t.MinStorageMBps > 0 {
		out = append(out, l.T("task.needs_storage", l.Int(t.MinStorageMBps)))
	}
	if t.AllowNoInterconnect {
		out = append(out, l.T("task.needs_no_link"))
	}
	return out
}
