package api

import "time"

// DryRun answers POST /api/v1/tasks?dry_run=1: where the task would stand in the queue, what
// it would cost and the quota it would use. Nothing is stored.
type DryRun struct {
	Lane         string     `json:"lane"`
	Position     int        `json:"position"`
	Reason       WaitReason `json:"reason"`
	ReasonText   string     `json:"reason_text"`
	ReasonDetail string     `json:"reason_detail,omitempty"`
	ETAP50       *time.Time `json:"eta_p50"`
	ETAP90       *time.Time `json:"eta_p90"`
	// WaitQuota is the limit it would wait on (reason quota, concurrent-limit).
	WaitQuota *QuotaWait `json:"wait_quota,omitempty"`
	// CardS is the card time priced: the estimate, else GPUs × max runtime (Basis says which:
	// "estimate" or "max_runtime").
	CardS int64  `json:"card_s"`
	Basis string `json:"basis"`
	// Cost is one quote per spec the task could run on.
	Cost  []DryRunCost `json:"cost"`
	Quota []QuotaUse   `json:"quota"`
	// Warnings are "quota" (it would wait on quota), "overflow" (it would run as overflow)
	// and "budget" (its estimate exceeds the budget left).
	Warnings []string `json:"warnings"`
}

// DryRunCost is a task's card time priced on one spec as its bill line would be.
type DryRunCost struct {
	Spec         string `json:"spec"`
	Mode         string `json:"mode"`
	Pricing      string `json:"pricing"`
	SizeClass    string `json:"size_class,omitempty"`
	RateFen      int64  `json:"rate_fen"`
	AmountFen    int64  `json:"amount_fen"`
	MissingPrice bool   `json:"missing_price"`
}

// QuotaUse is one of a project's quotas with its use this month.
type QuotaUse struct {
	Spec            string `json:"spec"`
	MaxGPUs         int    `json:"max_gpus"`
	BudgetCardHours int64  `json:"budget_card_hours"`
	UsedS           int64  `json:"used_s"`
	OverflowAllowed bool   `json:"overflow_allowed"`
	Active          bool   `json:"active"`
}

// Kept answers POST /api/v1/tasks/{id}/keep: the task keeps its cards until KeptUntil.
type Kept struct {
	ID        int64     `json:"id"`
	KeptUntil time.Time `json:"kept_until"`
}
