package projects

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
	"kashi/models"
	"kashi/scheduler"
)

// QuotaSet creates or replaces a project's quota for a spec, its contract with it (admins
// only).
// POST /api/v1/projects/:id/quotas.
func (h *Handler) QuotaSet(c echo.Context) error {
	id, err := handlers.PathID(c)
	if err != nil {
		return err
	}
	var b api.QuotaSetting
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
