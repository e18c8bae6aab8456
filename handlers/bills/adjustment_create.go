package bills

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/billing"
	"kashi/handlers"
	"kashi/models"
)

// AdjustmentCreate adds a signed correction in fen to a project's bill of a month (finance
// and admins): 201; 409 when that month is issued (corrections go on a later month's
// bill); 422 naming the field otherwise. POST /api/v1/bills/:project/:month/adjustments.
func (h *Handler) AdjustmentCreate(c echo.Context) error {
	p, month, err := h.billOf(c)
	if err != nil {
		return err
	}
	var b api.NewAdjustment
	if err := handlers.DecodeJSON(c, 8<<10, &b); err != nil {
		return err
	}
	out, err := h.addAdjustment(c, p, month, b)
	if err != nil {
		return billError(err)
	}
	return c.JSON(http.StatusCreated, out)
}

// addAdjustment stores b on p's bill of month and records it in the audit log: a month not
// begun or a bad field is a FieldError, an issued month a conflict. The API and the bill
// page's form share it.
func (h *Handler) addAdjustment(c echo.Context, p models.Project, month string, b api.NewAdjustment) (api.Adjustment, error) {
	ctx := c.Request().Context()
	loc, err := billing.Location(ctx, h.store)
	if err != nil {
		return api.Adjustment{}, err
	}
	if _, err := billing.CheckMonth(month, loc, h.Now()); err != nil {
		return api.Adjustment{}, err
	}
	by := handlers.Who(c).User.Name
	a, err := h.store.AddAdjustment(ctx, models.Adjustment{ProjectID: p.ID, Month: month, AmountFen: b.AmountFen,
		Reason: b.Reason, CorrectsMonth: b.CorrectsMonth, CreatedBy: by}, h.Now())
	if err != nil {
		return api.Adjustment{}, err
	}
	out := api.Adjustment{ID: a.ID, Project: p.Name, Month: a.Month, AmountFen: a.AmountFen, Reason: a.Reason,
		CorrectsMonth: a.CorrectsMonth, CreatedBy: a.CreatedBy, CreatedAt: a.CreatedAt}
	if err := h.store.Audit(ctx, h.Now(), by, auditAdjustmentAdd, &p.ID, "bill "+p.Name+" "+month, nil, out); err != nil {
		return api.Adjustment{}, err
	}
	return out, nil
}
