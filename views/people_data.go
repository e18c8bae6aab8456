package views

import (
	"time"
)

// ProjectView is one project.
type ProjectView struct {
	ID     int64
	Name   string
	Role   string // lead, member, or "" for admins and finance
	Quotas []QuotaView
	// NoQuota are the specs of the fleet the project has no quota on, each with the pools'
	// rule for it.
	NoQuota []SpecAccess
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
	Spec    string
	MaxGPUs int
	// LimitGPUs is the limit in force now (the temporary one while it holds): what InUseGPUs
	// is shown against, as the scheduler admits against it.
	LimitGPUs       int
	InUseGPUs       int // cards the project holds now on the spec (scheduler.QuotaUse)
	GuaranteedGPUs  int
	BudgetCardHours int64
	UsedCardHours   int64
	StartsAt        time.Time
	EndsAt          time.Time
	OverflowAllowed bool
	// Override describes a temporary limit in force or planned; empty when none.
	OverrideMaxGPUs int
	OverrideEnds    *time.Time
	// ContractMaxGPUs, ContractGuaranteedGPUs and ContractBudgetCardHours are how far a lead
	// approves the limit, the guarantee and the budget; above, an admin.
	ContractMaxGPUs, ContractGuaranteedGPUs int
	ContractBudgetCardHours                 int64
	// ReachGPUs is what the pools of the spec reach, GuaranteedElsewhere what other
	// projects' quotas of the spec guarantee of it.
	ReachGPUs, GuaranteedElsewhere int
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
	// Problems are those of a refused submit, named by the form's inputs (RequestFields).
	Problems Problems
}

// RequestFields are the request form's inputs in its order, as its problems name them.
var RequestFields = []string{"kind", "value", "begins", "ends", "region", "until", "reason"}
