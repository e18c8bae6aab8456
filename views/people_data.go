package views

import "time"

// ProjectsData is the projects page: each project the viewer sees with its quotas and this
// month's use, the request form, and the viewer's requests.
type ProjectsData struct {
	Now      time.Time
	Projects []ProjectView
	Requests []RequestView
	// Form is the request form's state after a failed submit; zero otherwise.
	Form RequestForm
	// Notice confirms a request just filed.
	Notice string
	// Create is the admin's form that adds a project; nil for others.
	Create *ProjectCreateForm
	// Regions are the pools' regions a reservation may hold its cards in.
	Regions []string
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

// ProjectView is one project.
type ProjectView struct {
	ID     int64
	Name   string
	Role   string // lead, member, or "" for admins and finance
	Quotas []QuotaView
	// CanRequest is true when the viewer may ask for quota changes in this project.
	CanRequest bool
	// Reclaim is the project's idle-reclaim form, shown to its leads only; nil for others.
	Reclaim *ReclaimForm
	// Admin holds the forms of the project's leads and the admins; nil for others.
	Admin *ProjectAdmin
}

// ReclaimForm is a project's idle-reclaim override as its lead edits it: whole minutes and
// keeps a day, empty for the pool's setting, and the opt-out.
type ReclaimForm struct {
	Never                                        bool
	IdleMin, GraceMin, KeepForMin, SetupGraceMin string
	KeepsPerDay                                  string
	// Error says why the last submission was refused.
	Error string
}

// QuotaView is one quota with this month's use.
type QuotaView struct {
	Spec            string
	MaxGPUs         int
	InUseGPUs       int // cards the project holds now on the spec
	GuaranteedGPUs  int
	BudgetCardHours int64
	UsedCardHours   int64
	StartsAt        time.Time
	EndsAt          time.Time
	OverflowAllowed bool
	// Override describes a temporary limit in force or planned; empty when none.
	OverrideMaxGPUs int
	OverrideEnds    *time.Time
}

// RequestForm is the quota request form.
type RequestForm struct {
	Project string
	Spec    string
	Kind    string
	Value   string
	Begins  string
	Ends    string
	Reason  string
	// Region holds a reservation's cards in one region; "" for any.
	Region string
	// Repeat, Weekdays ("mon" …) and Until (a date) repeat a reservation.
	Repeat   string
	Weekdays []string
	Until    string
	// Field and Error name the problem of a refused submit.
	Field string
	Error string
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
	// CanDecide is true when the viewer may approve or reject it.
	CanDecide bool
	// Context is what the decider weighs a pending request by; nil otherwise.
	Context *RequestContext
}

// ApprovalsData is the approvals page for leads: pending requests with the project's usage,
// then recent decisions.
type ApprovalsData struct {
	Now     time.Time
	Pending []RequestView
	Decided []RequestView
	Notice  string
	Error   string
}

// TokensData is the API tokens page.
type TokensData struct {
	Tokens []TokenView
	// NewToken is shown once, right after it was made.
	NewToken string
	Error    string
}

// TokenView is one API token, never its secret.
type TokenView struct {
	ID         int64
	Name       string
	Scope      string
	CreatedAt  time.Time
	LastUsedAt *time.Time
	Revoked    bool
}
