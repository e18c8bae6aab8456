package projects

import (
	"time"

	"kashi/views"
)

// ProjectsData is the projects page: each project the viewer sees with its quotas and this
// month's use, the request form, and the viewer's requests.
type ProjectsData struct {
	Now      time.Time
	Projects []views.ProjectView
	Requests []RequestView
	// Form is the request form's state after a failed submit; zero otherwise.
	Form views.RequestForm
	// Notice confirms a request just filed.
	Notice string
	// Create is the admin's form that adds a project; nil for others.
	Create *ProjectCreateForm
	// Regions are the pools' regions a reservation may hold its cards in.
	Regions []string
	// QuotaChanges are the latest changes of each project's quotas, newest first, by
	// project id, of the projects the viewer belongs to (all for an admin).
	QuotaChanges map[int64][]ChangeRow
	// ReclaimChanges are the latest changes of each project's idle-reclaim override, as
	// QuotaChanges.
	ReclaimChanges map[int64][]ChangeRow
}

// formShown reports whether the page holds the request form the failed submit came from
// (its project's card shows a form); else the page shows the form's error at its head.
func (d ProjectsData) formShown() bool {
	for _, p := range d.Projects {
		if p.Name == d.Form.Project && p.CanRequest && len(p.Quotas) > 0 {
			return true
		}
	}
	return false
}

// RequestView is one quota request.
type RequestView struct {
	ID        int64
	Project   string
	Spec      string
	Kind      string
	Change    string // the asked change in words
	Reason    string
	Requester string
	State     string
	Comment   string
	CreatedAt time.Time
	// CanDecide is true when the viewer may approve or reject it; CanApprove when they may
	// approve it too (a lead may not above the contract, an admin may).
	CanDecide, CanApprove bool
	// Admin: the viewer is an admin, whose approval above the contract raises it.
	Admin bool
	// Context is what the decider weighs a pending request by; nil otherwise.
	Context *RequestContext
	// ChangeURL is the page of the quota change an approved request made ("" for none).
	ChangeURL string
}

// ApprovalsData is the approvals page for leads: pending requests with the project's usage,
// then recent decisions.
type ApprovalsData struct {
	Now     time.Time
	Pending []RequestView
	Decided []RequestView
	Notice  string
	// Problems are those of a refused decision: of request Asking's AskDecision ("approve",
	// "reject"), whose question is shown open with them (a rejection without its reason);
	// with Asking 0, of the page (a request decided meanwhile).
	Problems    views.Problems
	Asking      int64
	AskDecision string
}
