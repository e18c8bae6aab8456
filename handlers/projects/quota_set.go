package projects

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
	"kashi/models"
	"kashi/scheduler"
)

// quotaRequestBody is the body of POST /api/v1/projects/:id/quotas.
type quotaBody struct {
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

// QuotaSet creates or replaces a project's quota for a spec, its contract with it (admins
// only).
// POST /api/v1/projects/:id/quotas.
func (h *Handler) QuotaSet(c echo.Context) error {
	id, err := handlers.PathID(c)
	if err != nil {
		return err
	}
	var b quotaBody
	if err := handlers.DecodeJSON(c, 16<<10, &b); err != nil {
		return err
	}
	q := models.Quota{ProjectID: id, Spec: b.Spec, MaxGPUs: b.MaxGPUs, GuaranteedGPUs: b.GuaranteedGPUs, MaxServiceGPUs: b.MaxServiceGPUs,
		BudgetCardHours: b.BudgetCardHours, StartsAt: b.StartsAt, EndsAt: b.EndsAt, OverflowAllowed: b.OverflowAllowed,
		OverflowRateFen: b.OverflowRateFen, OverrideMaxGPUs: b.OverrideMaxGPUs, OverrideBegins: b.OverrideBegins, OverrideEnds: b.OverrideEnds,
		RemindEndDays: models.JoinInts(b.RemindEndDays), RemindBudgetPcts: models.JoinInts(b.RemindBudgetPcts),
		ContractMaxGPUs: b.ContractMaxGPUs, ContractGuaranteedGPUs: b.ContractGuaranteedGPUs, ContractBudgetCardHours: b.ContractBudgetCardHours}
	saved, err := h.setQuota(c, q)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	usage, err := h.monthUsage(ctx)
	if err != nil {
		return err
	}
	use, err := h.quotaUse(ctx)
	if err != nil {
		return err
	}
	all, err := h.store.Projects(ctx)
	if err != nil {
		return err
	}
	var inUse scheduler.Use
	for _, pr := range all {
		if pr.ID == id {
			inUse = use[pr.Name]
		}
	}
	return c.JSON(http.StatusOK, toQuotaJSON(saved, usage[id], inUse, h.Now()))
}

// setQuota stores a quota and wakes the scheduler.
func (h *Handler) setQuota(c echo.Context, q models.Quota) (models.Quota, error) {
	saved, err := h.store.SetQuota(c.Request().Context(), handlers.Who(c).User.Name, q, h.Now())
	if err != nil {
		return saved, handlers.APIError(http.StatusUnprocessableEntity, err)
	}
	h.Sched.Trigger()
	return saved, nil
}
