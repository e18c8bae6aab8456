package tasks

import (
	"context"
	"math"
	"net/http"
	"slices"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/billing"
	"kashi/handlers"
	"kashi/models"
	"kashi/scheduler"
	"kashi/views"
	tasksview "kashi/views/tasks"
)

// dryRunJSON is the answer of POST /api/v1/tasks?dry_run=1: where the task would stand in
// the queue, what it would cost and the quota it would use.
type dryRunJSON struct {
	Lane         string         `json:"lane"`
	Position     int            `json:"position"`
	Reason       api.WaitReason `json:"reason"`
	ReasonText   string         `json:"reason_text"`
	ReasonDetail string         `json:"reason_detail,omitempty"`
	ETAP50       *time.Time     `json:"eta_p50"`
	ETAP90       *time.Time     `json:"eta_p90"`
	// WaitQuota is the limit it would wait on (reason quota, concurrent-limit).
	WaitQuota *api.QuotaWait `json:"wait_quota,omitempty"`
	// CardS is the card time priced: the estimate, else GPUs × max runtime (Basis says which).
	CardS int64  `json:"card_s"`
	Basis string `json:"basis"`
	// Cost is one quote per spec the task could run on.
	Cost  []costJSON     `json:"cost"`
	Quota []quotaUseJSON `json:"quota"`
	// Warnings are tasksview.WarnQuota (it would wait on quota), tasksview.WarnOverflow (it would
	// run as overflow) and tasksview.WarnBudget (its estimate exceeds the budget left).
	Warnings []string `json:"warnings"`
	// wait is the trial's entry and project its project's name, for the form.
	wait    scheduler.QueueEntry
	project string
	// minInter and minStorage are what the task asks of its pools, for its reason.
	minInter, minStorage int
}

// costJSON is the task's card time priced on one spec as its bill line would be.
type costJSON struct {
	Spec         string `json:"spec"`
	Mode         string `json:"mode"`
	Pricing      string `json:"pricing"`
	SizeClass    string `json:"size_class,omitempty"`
	RateFen      int64  `json:"rate_fen"`
	AmountFen    int64  `json:"amount_fen"`
	MissingPrice bool   `json:"missing_price"`
}

// quotaUseJSON is one of the project's quotas with its use this month.
type quotaUseJSON struct {
	Spec            string `json:"spec"`
	MaxGPUs         int    `json:"max_gpus"`
	BudgetCardHours int64  `json:"budget_card_hours"`
	UsedS           int64  `json:"used_s"`
	OverflowAllowed bool   `json:"overflow_allowed"`
	Active          bool   `json:"active"`
}

// taskDryRun answers a submit with dry_run: the task is validated as a submit would be and
// tried on the queue as it stands; nothing is stored and nothing is woken.
func (h *Handler) taskDryRun(c echo.Context, nt models.NewTask) error {
	ctx := c.Request().Context()
	if err := h.store.ValidateTask(ctx, nt, h.Cfg.TaskLimits); err != nil {
		return handlers.APIError(http.StatusUnprocessableEntity, err)
	}
	d, err := h.dryRun(ctx, nt, h.Now())
	if err != nil {
		return err
	}
	d.ReasonText = views.ReasonText(handlers.Locale(c), d.waitRow())
	return c.JSON(http.StatusOK, d)
}

// dryRunFlag reads the dry_run query parameter.
func dryRunFlag(c echo.Context) (bool, error) {
	switch c.QueryParam("dry_run") {
	case "", "0", "false":
		return false, nil
	case "1", "true":
		return true, nil
	}
	return false, echo.NewHTTPError(http.StatusBadRequest, api.Error{Error: "must be 1, true, 0 or false", Field: "dry_run"})
}

// dryRun tries the valid task nt on the queue at now (the scheduler's Try), prices its card
// time under the project's plan and the month's prices (billing.QuoteTask), and reads the
// project's quotas and use.
func (h *Handler) dryRun(ctx context.Context, nt models.NewTask, now time.Time) (dryRunJSON, error) {
	p, err := h.store.ProjectByName(ctx, nt.Project)
	if err != nil {
		return dryRunJSON{}, err
	}
	maxRT := nt.MaxRuntime
	if maxRT == 0 {
		maxRT = h.Cfg.TaskLimits.Limit(nt.Queue)
	}
	tr, err := h.Sched.Try(ctx, now, scheduler.Pending{Project: p.Name, ProjectID: p.ID, Spec: nt.Spec, Specs: nt.Specs,
		Regions: nt.Regions, DataRegion: nt.DataCheck.Region, Queue: nt.Queue,
		Priority: nt.Priority, GPUs: nt.GPUs, EstRuntime: scheduler.EstRuntime(nt.EstGPUHours, nt.GPUs),
		MaxRuntime: maxRT, DataReady: nt.DataReady, Deferrable: nt.Deferrable, MinInterNodeGbps: nt.MinInterNodeGbps,
		MinStorageMBps: nt.MinStorageMBps, AllowNoInterconnect: nt.AllowNoInterconnect})
	if err != nil {
		return dryRunJSON{}, err
	}
	d := dryRunJSON{wait: tr.QueueEntry, project: p.Name, minInter: nt.MinInterNodeGbps, minStorage: nt.MinStorageMBps, Lane: tr.Lane, Position: tr.Position, Reason: api.WaitReason(tr.Reason),
		ReasonDetail: tr.Detail, ETAP50: etaJSON(tr.ETAP50), ETAP90: etaJSON(tr.ETAP90), WaitQuota: quotaWait(tr.Quota), Basis: "estimate",
		CardS: int64(math.Round(nt.EstGPUHours * 3600)), Cost: []costJSON{}, Quota: []quotaUseJSON{}, Warnings: []string{}}
	if d.CardS == 0 {
		d.CardS, d.Basis = int64(nt.GPUs)*int64(maxRT/time.Second), "max_runtime"
	}
	month := billing.MonthOf(now, h.Loc()).String()
	prices, err := h.store.Prices(ctx, month)
	if err != nil {
		return dryRunJSON{}, err
	}
	plans, err := h.store.BillingPlans(ctx, month)
	if err != nil {
		return dryRunJSON{}, err
	}
	quotas, err := h.store.Quotas(ctx, p.ID)
	if err != nil {
		return dryRunJSON{}, err
	}
	for _, spec := range quotedSpecs(nt.Spec, tr, prices, p.ID) {
		q, err := billing.QuoteTask(billing.QuoteInput{ProjectID: p.ID, Spec: spec, CardSeconds: d.CardS,
			Overflow: tr.Overflow, Prices: prices, Plans: plans, Quotas: quotas})
		if err != nil {
			return dryRunJSON{}, err
		}
		d.Cost = append(d.Cost, costJSON{Spec: spec, Mode: q.Mode, Pricing: q.Line.Pricing, SizeClass: q.Line.SizeClass,
			RateFen: q.Line.RateFen, AmountFen: q.Line.AmountFen, MissingPrice: q.MissingPrice})
	}
	usage, err := h.store.UsageSeconds(ctx, models.MonthStart(now, h.Loc()), now)
	if err != nil {
		return dryRunJSON{}, err
	}
	budget := false
	for _, q := range quotas {
		if q.Spec != "" && nt.Spec != "" && q.Spec != nt.Spec {
			continue
		}
		u := quotaUseJSON{Spec: q.Spec, MaxGPUs: q.Limit(now), BudgetCardHours: q.BudgetCardHours,
			UsedS: usage[p.ID][q.Spec], OverflowAllowed: q.OverflowAllowed, Active: q.Active(now)}
		if q.Spec == "" {
			u.UsedS = 0
			for _, s := range usage[p.ID] {
				u.UsedS += s
			}
		}
		budget = budget || u.UsedS+d.CardS > q.BudgetCardHours*3600
		d.Quota = append(d.Quota, u)
	}
	switch {
	case tr.Reason == scheduler.ReasonQuota:
		d.Warnings = append(d.Warnings, tasksview.WarnQuota)
	case tr.Overflow:
		d.Warnings = append(d.Warnings, tasksview.WarnOverflow)
	}
	if budget {
		d.Warnings = append(d.Warnings, tasksview.WarnBudget)
	}
	return d, nil
}

// quotedSpecs are the specs a dry run prices: the one the task would start on, else the one
// asked, else (any spec) every spec the price list names for the project.
func quotedSpecs(asked string, tr scheduler.Trial, prices []models.Price, project int64) []string {
	switch {
	case tr.Starting:
		return []string{tr.Spec}
	case asked != "":
		return []string{asked}
	}
	var specs []string
	for _, pr := range prices {
		if (pr.ProjectID == 0 || pr.ProjectID == project) && !slices.Contains(specs, pr.Spec) {
			specs = append(specs, pr.Spec)
		}
	}
	slices.Sort(specs)
	return specs
}

// waitRow is how the task would wait, as the queue shows a wait.
func (d dryRunJSON) waitRow() views.QueueRow {
	w := d.wait
	return views.QueueRow{Project: d.project, Reason: api.WaitReason(w.Reason), ReasonSpec: w.Spec, Ahead: w.Ahead, Detail: w.Detail,
		Quota: quotaWait(w.Quota), ETAP50: w.ETAP50, ETAP90: w.ETAP90, MinInterNodeGbps: d.minInter, MinStorageMBps: d.minStorage}
}

// estimate is the dry run as the submit form shows it.
func (d dryRunJSON) estimate(now time.Time) *tasksview.TaskEstimate {
	e := &tasksview.TaskEstimate{Now: now, Warnings: d.Warnings, Wait: d.waitRow()}
	for _, c := range d.Cost {
		e.Costs = append(e.Costs, tasksview.TaskCost{Spec: c.Spec, AmountFen: c.AmountFen, MissingPrice: c.MissingPrice})
	}
	return e
}
