package bills

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
	"kashi/models"
)

// PriceSet sets the pay-as-you-go and overflow rates of a spec from a month on, for one
// project or the default list (admins only). A negative rate or a bad month is 422 naming
// the field, and nothing changes. POST /api/v1/prices.
func (h *Handler) PriceSet(c echo.Context) error {
	var b api.Price
	if err := handlers.DecodeJSON(c, 8<<10, &b); err != nil {
		return err
	}
	if err := h.setPrice(c, b); err != nil {
		return billError(err)
	}
	return c.JSON(http.StatusOK, b)
}

// setPrice stores b and records it in the audit log; an unknown project or a bad field is a
// FieldError, every bad field named at once. The API and the prices page share it.
func (h *Handler) setPrice(c echo.Context, b api.Price) error {
	ctx := c.Request().Context()
	pr, err := h.priceOf(c, b)
	if err != nil {
		return err
	}
	if err := h.store.SetPrice(ctx, pr, h.Now()); err != nil {
		return err
	}
	var projectID *int64
	if pr.ProjectID != 0 {
		projectID = &pr.ProjectID
	}
	subject := "price " + b.Spec + " from " + b.FromMonth
	return h.store.Audit(ctx, h.Now(), handlers.Who(c).User.Name, auditPriceSet, projectID, subject, nil, b)
}

// checkPrice names every bad field of b, storing nothing.
func (h *Handler) checkPrice(c echo.Context, b api.Price) error {
	_, err := h.priceOf(c, b)
	return err
}

// priceOf is b as the store's price; an unknown project and the price's own bad fields are
// FieldErrors, named together.
func (h *Handler) priceOf(c echo.Context, b api.Price) (models.Price, error) {
	pr := models.Price{Spec: b.Spec, FromMonth: b.FromMonth, RateFen: b.RateFen, OverflowRateFen: b.OverflowRateFen}
	var ps models.Problems
	if b.Project != "" {
		p, err := h.store.ProjectByName(c.Request().Context(), b.Project)
		switch {
		case errors.Is(err, models.ErrNotFound):
			ps.Add(models.Invalid("project", "no project %s", b.Project))
		case err != nil:
			return pr, err
		default:
			pr.ProjectID = p.ID
		}
	}
	ps.Add(models.CheckPrice(pr))
	return pr, ps.Err()
}
