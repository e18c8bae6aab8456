package projects

import (
	"time"

	"kashi/phrase"
	"kashi/views"
)

// RequestContext is what a lead weighs a pending quota request by: the value now, the value
// asked and the difference, the project's use of the quota now and this month, its tasks
// waiting on the quota, what the change may cost at current prices, and how long the request
// has waited.
type RequestContext struct {
	Current, Requested, Diff string
	// InUse is the GPUs the project's tasks hold of the quota's spec now, of Limit.
	InUse, Limit int
	// MonthCardHours is the card-hours used this month, of BudgetCardHours.
	MonthCardHours, BudgetCardHours int64
	Waiting                         []WaitingTask
	// CostFen is the most the change may add at current prices, on CostBasis (a key of
	// the catalog's "ctx.basis." texts); NoPrice is true when the spec has no price.
	CostFen   int64
	CostBasis string
	NoPrice   bool
	Age       time.Duration
	// Contract says how far a lead approves the value asked ("" for kinds it does not bound);
	// NeedsAdmin, when set, says why this request is above it, so that only an admin
	// approves it. Room says what the fleet has left for a guarantee or a booking.
	Contract, NeedsAdmin, Room string
}

// WaitingTask is a task waiting on its project's quota.
type WaitingTask struct {
	ID   int64
	Name string
	GPUs int
}

// Yuan formats fen as the pages show money: "¥1,234.56".
func Yuan(fen int64) string { return views.Yuan(fen) }

// costBasis says what a request's cost assumes.
func costBasis(l phrase.Locale, basis string) string {
	switch basis {
	case "budget":
		return l.T("ctx.basis.budget")
	case "month":
		return l.T("ctx.basis.month")
	case "override":
		return l.T("ctx.basis.override")
	case "extend":
		return l.T("ctx.basis.extend")
	case "overflow":
		return l.T("ctx.basis.overflow")
	case "reservation":
		return l.T("reserve.basis")
	}
	return ""
}
