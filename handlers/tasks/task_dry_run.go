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

// dryRun is a dry run's answer with what the submit form shows beside it.
type dryRun struct {
	api.DryRun
	// wait is the trial's entry and project its project's name, for the form.
	wait    scheduler.QueueEntry
	project string
	// minInter and minStorage are what the task asks of its pools, for its reason.
	minInter, minStorage int
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
	return c.JSON(http.StatusOK, d.DryRun)
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
func (h *Handler) dryRun(ctx context.Context, nt models.NewTask, now time.Time) (dryRun, error) {
	p, err := h.store.ProjectByName(ctx, nt.Project)
	if err != nil {
		return dryRun{}, err
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
		return dryRun{}, err
	}
	d := dryRun{wait: tr.QueueEntry, project: p.Name, minInter: nt.MinInterNodeGbps, minStorage: nt.MinStorageMBps, DryRun: api.DryRun{Lane: tr.Lane, Position: tr.Position, Reason: api.WaitReason(tr.Reason),
		ReasonDetail: tr.Detail, ETAP50: etaJSON(tr.ETAP50), ETAP90: etaJSON(tr.ETAP90), WaitQuota: quotaWait(tr.Quota), Basis: "estimate",
		CardS: int64(math.Round(nt.EstGPUHours * 3600)), Cost: []api.DryRunCost{}, Quota: []api.QuotaUse{}, Warnings: []string{}}}
	if d.CardS == 0 {
		d.CardS, d.Basis = int64(nt.GPUs)*int64(maxRT/time.Second), "max_runtime"
	}
	month := billing.MonthOf(now, h.Loc()).String()
	prices, err := h.store.Prices(ctx, month)
	if err != nil {
		return dryRun{}, err
	}
	plans, err := h.store.BillingPlans(ctx, month)
	if err != nil {
		return dryRun{}, err
	}
	quotas, err := h.store.Quotas(ctx, p.ID)
	if err != nil {
		return dryRun{}, err
	}
	for _, spec := range quotedSpecs(nt.Spec, tr, prices, p.ID) {
		q, err := billing.QuoteTask(billing.QuoteInput{ProjectID: p.ID, Spec: spec, CardSeconds: d.CardS,
			Overflow: tr.Overflow, Prices: prices, Plans: plans, Quotas: quotas})
		if err != nil {
			return dryRun{}, err
		}
		d.Cost = append(d.Cost, api.DryRunCost{Spec: spec, Mode: q.Mode, Pricing: q.Line.Pricing, SizeClass: q.Line.SizeClass,
			RateFen: q.Line.RateFen, AmountFen: q.Line.AmountFen, MissingPrice: q.MissingPrice})
	}
	usage, err := h.store.UsageSeconds(ctx, models.MonthStart(now, h.Loc()), now)
	if err != nil {
		return dryRun{}, err
	}
	budget := false
	for _, q := range quotas {
		if q.Spec != "" && nt.Spec != "" && q.Spec != nt.Spec {
			continue
		}
		u := api.QuotaUse{Spec: q.Spec, MaxGPUs: q.Limit(now), BudgetCardHours: q.BudgetCardHours,
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
func (d dryRun) waitRow() views.QueueRow {
	w := d.wait
	return views.QueueRow{Project: d.project, Reason: api.WaitReason(w.Reason), ReasonSpec: w.Spec, Ahead: w.Ahead, Detail: w.Detail,
		Quota: quotaWait(w.Quota), ETAP50: w.ETAP50, ETAP90: w.ETAP90, MinInterNodeGbps: d.minInter, MinStorageMBps: d.minStorage}
}

// estimate is the dry run as the submit form shows it.
func (d dryRun) estimate(now time.Time) *tasksview.TaskEstimate {
	e := &tasksview.TaskEstimate{Now: now, Warnings: d.Warnings, Wait: d.waitRow()}
	for _, c := range d.Cost {
		e.Costs = append(e.Costs, tasksview.TaskCost{Spec: c.Spec, AmountFen: c.AmountFen, MissingPrice: c.MissingPrice})
	}
	return e
}
