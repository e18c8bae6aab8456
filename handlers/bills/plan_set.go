package bills

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
	"kashi/models"
)

// PlanSet sets how a project is billed from a month on (admins only): mode "payg",
// "reserved" (also "package": a monthly fee for N cards of a spec) or "per-task". A negative
// fee or price, a package without cards or spec, or bad size classes is 422 naming the
// field, and nothing changes. POST /api/v1/projects/:id/plan.
func (h *Handler) PlanSet(c echo.Context) error {
	id, err := handlers.PathID(c)
	if err != nil {
		return err
	}
	var b api.Plan
	if err := handlers.DecodeJSON(c, 16<<10, &b); err != nil {
		return err
	}
	if err := h.setPlan(c, id, &b); err != nil {
		if fe := (*models.FieldError)(nil); errors.As(err, &fe) && fe.Field == "project_id" {
			return echo.NewHTTPError(http.StatusNotFound, api.Error{Error: "no such project"})
		}
		return billError(err)
	}
	return c.JSON(http.StatusOK, b)
}

// setPlan stores b as project id's plan and records it in the audit log; a bad field is a
// FieldError ("project_id" for an unknown project). The API and the prices page share it.
func (h *Handler) setPlan(c echo.Context, id int64, b *api.Plan) error {
	ctx := c.Request().Context()
	if err := h.store.SetBillingPlan(ctx, planOf(id, b), h.Now()); err != nil {
		return err
	}
	return h.store.Audit(ctx, h.Now(), handlers.Who(c).User.Name, auditPlanSet, &id, "plan from "+b.FromMonth, nil, b)
}

// planOf is b as project id's plan ("package" is the reserved mode's other name, and b says
// so from then on).
func planOf(id int64, b *api.Plan) models.BillingPlan {
	if b.Mode == "package" {
		b.Mode = models.BillReserved
	}
	plan := models.BillingPlan{ProjectID: id, FromMonth: b.FromMonth, Mode: b.Mode, PackageSpec: b.PackageSpec,
		PackageCards: b.PackageCards, PackageFeeFen: b.PackageFeeFen, UnitPriceFen: b.UnitPriceFen}
	if len(b.SizeClasses) > 0 && string(b.SizeClasses) != "null" {
		plan.SizeClasses = string(b.SizeClasses)
	}
	return plan
}
