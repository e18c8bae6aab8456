package projects

import (
	"strconv"
	"time"

	"github.com/a-h/templ"

	"kashi/phrase"
	"kashi/views"
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

// decideAction is where a pending request's decision is posted.
func decideAction(r RequestView) templ.SafeURL {
	return templ.SafeURL("/approvals/" + strconv.FormatInt(r.ID, 10))
}

// requestSubject names what a request is of: "vision · A100-80G".
func requestSubject(l phrase.Locale, r RequestView) string {
	return r.Project + " · " + specName(l, r.Spec)
}

// approveQuestion asks before approving: the change, that it applies at once, and what it
// costs at current prices when the request's context knows.
func approveQuestion(l phrase.Locale, r RequestView) string {
	x := r.Context
	switch {
	case x == nil:
		return l.T("approvals.confirm_approve_nocost", r.ID, requestSubject(l, r), r.Change)
	case x.NoPrice:
		return l.T("approvals.confirm_approve", r.ID, requestSubject(l, r), r.Change, l.T("ctx.no_price"))
	}
	return l.T("approvals.confirm_approve", r.ID, requestSubject(l, r), r.Change, Yuan(x.CostFen)+" "+costBasis(l, x.CostBasis))
}

// asking reports whether r's question of decision came back refused: it shows open.
func asking(d ApprovalsData, r RequestView, decision string) bool {
	return d.Asking == r.ID && d.AskDecision == decision
}

// askProblems are the problems of r's decision when it came back refused.
func askProblems(d ApprovalsData, r RequestView, decision string) views.Problems {
	if !asking(d, r, decision) {
		return nil
	}
	return d.Problems
}
