package api

import "time"

// Project is a project as GET /api/v1/projects lists it: its tags, its quotas with this
// month's use and its idle-reclaim override. POST /api/v1/projects answers the new one.
type Project struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
	// Role is the caller's role in the project ("lead", "member"); absent for none.
	Role   string   `json:"role,omitempty"`
	Tags   []string `json:"tags"`
	Quotas []Quota  `json:"quotas"`
	// Reclaim is the project's idle-reclaim override (POST /api/v1/projects/{id}/reclaim).
	Reclaim ReclaimOverride `json:"reclaim"`
	// ArchivedAt is when the project was archived; absent while it is in use.
	ArchivedAt *time.Time `json:"archived_at,omitempty"`
}

// Quota is a project's quota on a spec ("" for all specs) with this month's use of it.
type Quota struct {
	Spec           string `json:"spec"`
	MaxGPUs        int    `json:"max_gpus"`
	GuaranteedGPUs int    `json:"guaranteed_gpus"`
	// MaxServiceGPUs caps the cards the project's services hold; 0 for no cap of their own.
	MaxServiceGPUs  int     `json:"max_service_gpus"`
	BudgetCardHours int64   `json:"budget_card_hours"`
	UsedCardHours   float64 `json:"used_card_hours"`
	// InUseGPUs is the cards the project holds now that count against the quota: of its
	// spec, or of every spec for a quota of all specs, as the scheduler counts them;
	// LimitGPUs the limit they are admitted against now (the temporary one while it is in
	// force).
	InUseGPUs       int        `json:"in_use_gpus"`
	LimitGPUs       int        `json:"limit_gpus"`
	StartsAt        time.Time  `json:"starts_at"`
	EndsAt          time.Time  `json:"ends_at"`
	OverflowAllowed bool       `json:"overflow_allowed"`
	OverflowRateFen int64      `json:"overflow_rate_fen"`
	OverrideMaxGPUs int        `json:"override_max_gpus,omitempty"`
	OverrideBegins  *time.Time `json:"override_begins,omitempty"`
	OverrideEnds    *time.Time `json:"override_ends,omitempty"`
	// RemindEndDays and RemindBudgetPcts are the quota's own reminders; empty when it keeps
	// the server's.
	RemindEndDays    []int `json:"remind_end_days"`
	RemindBudgetPcts []int `json:"remind_budget_pcts"`
	// ContractMaxGPUs, ContractGuaranteedGPUs and ContractBudgetCardHours are the contract:
	// how far a lead may raise the limit, the guarantee and the budget (above, an admin).
	ContractMaxGPUs         int   `json:"contract_max_gpus"`
	ContractGuaranteedGPUs  int   `json:"contract_guaranteed_gpus"`
	ContractBudgetCardHours int64 `json:"contract_budget_card_hours"`
}

// ReclaimOverride is a project's idle-reclaim override; zero fields keep the pool's.
type ReclaimOverride struct {
	// Never: the project's tasks are never reclaimed.
	Never bool `json:"never"`
	// IdleS: seconds all of a task's cards stay idle before its owner gets a notice.
	IdleS int64 `json:"idle_s"`
	// GraceS: seconds a notice waits for an answer before the task is stopped.
	GraceS int64 `json:"grace_s"`
	// KeepForS: seconds a "keep" answer holds the cards; KeepsPerDay caps the keeps a day.
	KeepForS    int64 `json:"keep_for_s"`
	KeepsPerDay int   `json:"keeps_per_day"`
	// SetupGraceS: seconds after a task's start before its idle time counts.
	SetupGraceS int64 `json:"setup_grace_s"`
}

// QuotaRequest is a quota request (配额审批) as the API shows it.
type QuotaRequest struct {
	ID        int64       `json:"id"`
	Project   string      `json:"project"`
	Spec      string      `json:"spec"`
	Kind      string      `json:"kind"`
	Change    QuotaChange `json:"change"`
	Reason    string      `json:"reason"`
	Requester string      `json:"requester"`
	State     string      `json:"state"`
	Comment   string      `json:"comment"`
	CreatedAt time.Time   `json:"created_at"`
	DecidedAt *time.Time  `json:"decided_at"`
}

// NewQuotaRequest files a quota request: POST /api/v1/requests.
type NewQuotaRequest struct {
	Project string      `json:"project"`
	Spec    string      `json:"spec"`
	Kind    string      `json:"kind"`
	Change  QuotaChange `json:"change"`
	Reason  string      `json:"reason"`
}

// QuotaChange is what a quota request asks, by its kind; the fields of other kinds are
// absent.
type QuotaChange struct {
	MaxGPUs         int        `json:"max_gpus,omitempty"`
	AddCardHours    int64      `json:"add_card_hours,omitempty"`
	EndsAt          *time.Time `json:"ends_at,omitempty"`
	OverrideMaxGPUs int        `json:"override_max_gpus,omitempty"`
	OverrideBegins  *time.Time `json:"override_begins,omitempty"`
	OverrideEnds    *time.Time `json:"override_ends,omitempty"`
	// GuaranteedGPUs is the guaranteed share asked (kind guarantee).
	GuaranteedGPUs *int `json:"guaranteed_gpus,omitempty"`
	// OverflowAllowed and OverflowRateFen are the overflow asked (kind overflow); a rate of 0
	// is the price list's overflow rate.
	OverflowAllowed *bool `json:"overflow_allowed,omitempty"`
	OverflowRateFen int64 `json:"overflow_rate_fen,omitempty"`
	// ReserveGPUs cards booked from ReserveBegins to ReserveEnds, again on each of the next
	// ReserveWeeks weeks, or as ReserveRepeat (daily, weekly on ReserveWeekdays) says until
	// ReserveUntil in ReserveZone (kind reservation); ReserveRegion holds them in one region,
	// ReserveSpec is the spec booked.
	ReserveGPUs     int        `json:"reserve_gpus,omitempty"`
	ReserveBegins   *time.Time `json:"reserve_begins,omitempty"`
	ReserveEnds     *time.Time `json:"reserve_ends,omitempty"`
	ReserveWeeks    int        `json:"reserve_weeks,omitempty"`
	ReserveRegion   string     `json:"reserve_region,omitempty"`
	ReserveSpec     string     `json:"reserve_spec,omitempty"`
	ReserveRepeat   string     `json:"reserve_repeat,omitempty"`
	ReserveWeekdays []string   `json:"reserve_weekdays,omitempty"`
	ReserveUntil    *time.Time `json:"reserve_until,omitempty"`
	ReserveZone     string     `json:"reserve_zone,omitempty"`
}

// Reservation is a booked window of cards.
type Reservation struct {
	ID        int64     `json:"id"`
	RequestID int64     `json:"request_id"`
	Project   string    `json:"project"`
	Spec      string    `json:"spec"`
	GPUs      int       `json:"gpus"`
	StartsAt  time.Time `json:"starts_at"`
	EndsAt    time.Time `json:"ends_at"`
	State     string    `json:"state"`
	// Occurrence and Occurrences place a repeating reservation's window: the Occurrence-th
	// (from 1) of its request's Occurrences booked windows.
	Occurrence  int `json:"occurrence"`
	Occurrences int `json:"occurrences"`
}

// NewProject is the body of POST /api/v1/projects (admins).
type NewProject struct {
	Name string   `json:"name"`
	Tags []string `json:"tags"`
}

// ProjectArchive is the body of POST /api/v1/projects/{id}/archive: true archives the
// project, false takes it back into use; absent is refused.
type ProjectArchive struct {
	Archived *bool `json:"archived"`
}

// ProjectTags is the body of POST /api/v1/projects/{id}/tags: the project's whole tag list.
type ProjectTags struct {
	Tags []string `json:"tags"`
}

// Membership is the body of POST /api/v1/projects/{id}/members: a user and their role in
// the project.
type Membership struct {
	User string `json:"user"`
	Role string `json:"role"`
}

// RequestDecision is the body of POST /api/v1/requests/{id}/approve and /reject, which may be
// left out: Reason is what the requester reads (Comment its older name).
type RequestDecision struct {
	Comment string `json:"comment"`
	Reason  string `json:"reason"`
}

// QuotaSetting is the body of POST /api/v1/projects/{id}/quotas (admins): a project's quota
// on a spec and its contract.
type QuotaSetting struct {
	Spec            string     `json:"spec"`
	MaxGPUs         int        `json:"max_gpus"`
	GuaranteedGPUs  int        `json:"guaranteed_gpus"`
	MaxServiceGPUs  int        `json:"max_service_gpus"`
	BudgetCardHours int64      `json:"budget_card_hours"`
	StartsAt        time.Time  `json:"starts_at"`
	EndsAt          time.Time  `json:"ends_at"`
	OverflowAllowed bool       `json:"overflow_allowed"`
	OverflowRateFen int64      `json:"overflow_rate_fen"`
	OverrideMaxGPUs int        `json:"override_max_gpus"`
	OverrideBegins  *time.Time `json:"override_begins"`
	OverrideEnds    *time.Time `json:"override_ends"`
	// RemindEndDays and RemindBudgetPcts are the quota's own reminders; empty keeps the
	// server's.
	RemindEndDays    []int `json:"remind_end_days"`
	RemindBudgetPcts []int `json:"remind_budget_pcts"`
	// ContractMaxGPUs, ContractGuaranteedGPUs and ContractBudgetCardHours are how far a lead
	// may raise the limit, the guarantee and the budget; 0 (or absent) for the value set.
	ContractMaxGPUs         int   `json:"contract_max_gpus"`
	ContractGuaranteedGPUs  int   `json:"contract_guaranteed_gpus"`
	ContractBudgetCardHours int64 `json:"contract_budget_card_hours"`
}
