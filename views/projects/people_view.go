package projects

import (
	"time"

	"kashi/phrase"
)

// projectRole names a project role.
func projectRole(l phrase.Locale, role string) string {
	if role == "lead" {
		return l.T("role.lead")
	}
	return l.T("role.member")
}

// specName shows a quota's spec; "" is every spec together.
func specName(l phrase.Locale, spec string) string {
	if spec == "" {
		return l.T("quota.all_specs")
	}
	return spec
}

// requestState names a request's state.
func requestState(l phrase.Locale, state string) string {
	switch state {
	case "approved":
		return l.T("requests.state.approved")
	case "rejected":
		return l.T("requests.state.rejected")
	}
	return l.T("requests.state.pending")
}

// shanghaiOr is the zone quota times are shown in: the zone of now.
func shanghaiOr(now time.Time) *time.Location { return now.Location() }

// RequestSentNotice confirms a filed quota request.
func RequestSentNotice(l phrase.Locale, id int64) string { return l.T("requests.sent", id) }

// ReclaimSavedNotice confirms a project's idle-reclaim settings were saved.
func ReclaimSavedNotice(l phrase.Locale) string { return l.T("reclaim.saved") }

// DecidedNotice confirms a decision on a quota request.
func DecidedNotice(l phrase.Locale, id int64, approved bool) string {
	state := requestState(l, "rejected")
	if approved {
		state = requestState(l, "approved")
	}
	return l.T("approvals.done", id, state)
}
