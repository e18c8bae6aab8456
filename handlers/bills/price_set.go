package bills

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
	"kashi/models"
)

// priceBody is the body of POST /api/v1/prices, and its answer. The fields are the model's.
type priceBody struct {
	// Project is a project's name, or "" for the default price list.
	Project         string `json:"project"`
	Spec            string `json:"spec"`
	FromMonth       string `json:"from_month"`
	RateFen         int64  `json:"rate_fen"`
	OverflowRateFen int64  `json:"overflow_rate_fen"`
}

// PriceSet sets the pay-as-you-go and overflow rates of a spec from a month on, for one
// project or the default list (admins only). A negative rate or a bad month is 422 naming
// the field, and nothing changes. POST /api/v1/prices.
func (h *Handler) PriceSet(c echo.Context) error {
	var b priceBody
	if err := handlers.DecodeJSON(c, 8<<10, &b); err != nil {
		return err
	}
	if err := h.setPrice(c, b); err != nil {
		return billError(err)
	}
	return c.JSON(http.StatusOK, b)
}

// setPrice stores b and records it in the audit log; an unknown project or a bad field is a
// FieldError. The API and the prices page share it.
func (h *Handler) setPrice(c echo.Context, b priceBody) error {
	ctx := c.Request().Context()
	pr := models.Price{Spec: b.Spec, FromMonth: b.FromMonth, RateFen: b.RateFen, OverflowRateFen: b.OverflowRateFen}
	var projectID *int64
	if b.Project != "" {
		p, err := h.store.ProjectByName(ctx, b.Project)
		if errors.Is(err, models.ErrNotFound) {
			return models.Invalid("project", "no project %s", b.Project)
		}
		if err != nil {
			return err
		}
		pr.ProjectID, projectID = p.ID, &p.ID
	}
	if err := h.store.SetPrice(ctx, pr, h.Now()); err != nil {
		return err
	}
	subject := "price " + b.Spec + " from " + b.FromMonth
	return h.store.Audit(ctx, h.Now(), handlers.Who(c).User.Name, auditPriceSet, projectID, subject, nil, b)
}
