package billing

import "kashi/models"

// QuoteInput is card time not yet used, to be priced as a bill would price it: one
// project's task on one spec, under the month's price list and the project's plan and quotas.
type QuoteInput struct {
	ProjectID int64
	Spec      string
	// CardSeconds is the card time to price (a task's estimated card-hours × 3600).
	CardSeconds int64
	// Overflow prices it as quota overflow (the task would run beyond its quota).
	Overflow bool
	// Prices, Plans and Quotas are those in force for the month (the store's Prices and
	// BillingPlans of the month, and the project's quotas).
	Prices []models.Price
	Plans  []models.BillingPlan
	Quotas []models.Quota
}

// Quote is card time priced ahead of use.
type Quote struct {
	// Mode is the project's billing mode (models.BillPayAsYouGo, BillReserved, BillPerTask).
	Mode string
	// Line is the bill line the task would get: Pricing, RateFen, AmountFen and, per task,
	// SizeClass.
	Line Line
	// MissingPrice is true when the price list has no price for the spec: the line rates
	// 0, as the bill would.
	MissingPrice bool
}

// QuoteTask prices in as the bill line the task would get if it ran as estimated, through
// the same pricing as Compute. A per-unit plan charges the units the task will report,
// unknown before it runs (the amount is 0; RateFen is per unit); a reserved package's spec
// is covered by the package fee (0, unless the month's package hours run out).
func QuoteTask(in QuoteInput) (Quote, error) {
	const task = -1 // the task not yet submitted
	b := &Bill{ProjectID: in.ProjectID}
	tasks := map[int64]*models.LedgerTask{task: {ID: task}}
	p := newPricing(in.Prices, in.Plans, in.Quotas, nil)
	bl, err := p.pricer(b, tasks, map[int64]int64{task: in.CardSeconds})
	if err != nil {
		return Quote{}, err
	}
	l := bl.line(&lineAcc{key: lineKey{task: task, spec: in.Spec, overflow: in.Overflow}, held: Breakdown{Active: in.CardSeconds}})
	l.TaskID = 0
	return Quote{Mode: bl.plan.Mode, Line: l, MissingPrice: len(bl.missing) > 0}, nil
}
