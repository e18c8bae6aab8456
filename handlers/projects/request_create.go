package projects

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/billing"
	"kashi/handlers"
	"kashi/models"
)

// RequestCreate files a quota request for a project the caller belongs to.
// POST /api/v1/requests.
func (h *Handler) RequestCreate(c echo.Context) error {
	var b api.NewQuotaRequest
	if err := handlers.DecodeJSON(c, 16<<10, &b); err != nil {
		return err
	}
	req, err := h.fileRequest(c, b)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, toRequestJSON(models.QuotaRequestRow{QuotaRequest: req, Project: b.Project, Requester: handlers.Who(c).User.Name}))
}

// fileRequest checks the caller belongs to the project and files the request.
func (h *Handler) fileRequest(c echo.Context, b api.NewQuotaRequest) (models.QuotaRequest, error) {
	ctx := c.Request().Context()
	p, err := h.store.ProjectByName(ctx, b.Project)
	if err != nil {
		return models.QuotaRequest{}, handlers.APIError(http.StatusUnprocessableEntity, models.Invalid("project", "unknown project"))
	}
	if !handlers.Who(c).CanRun(p.ID) {
		return models.QuotaRequest{}, handlers.Forbidden("you are not a member of project " + p.Name)
	}
	if b.Change.ReserveRepeat != "" && b.Change.ReserveZone == "" {
		b.Change.ReserveZone = h.Loc().String()
	}
	if b.Kind == models.RequestReservation && b.Spec == "" && b.Change.ReserveRegion != "" && b.Change.ReserveSpec == "" {
		if b.Change.ReserveSpec, err = h.regionSpec(ctx, p.ID, models.QuotaChange(b.Change)); err != nil {
			return models.QuotaRequest{}, err
		}
	}
	req, err := h.store.CreateQuotaRequest(ctx, handlers.Who(c).User, p.ID, b.Spec, b.Kind, models.QuotaChange(b.Change), b.Reason, h.Now())
	if err != nil {
		return req, handlers.APIError(http.StatusUnprocessableEntity, err)
	}
	return req, nil
}

// regionSpec chooses the spec a reservation in a region on the project's all-spec quota
// books (models.ReservationSpec, at the project's prices this month); a region with no spec
// that can provide the cards is a 422 naming reserve_region.
func (h *Handler) regionSpec(ctx context.Context, projectID int64, c models.QuotaChange) (string, error) {
	pools, err := h.store.ConfiguredPools(ctx)
	if err != nil {
		return "", err
	}
	w := requestWorld{}
	if w.prices, err = h.store.Prices(ctx, billing.MonthOf(h.Now(), h.Loc()).String()); err != nil {
		return "", err
	}
	spec, ok := models.ReservationSpec(pools, func(spec string) (int64, bool) {
		rate, _, ok := w.rate(projectID, spec)
		return rate, ok
	}, c.ReserveRegion, c.ReserveGPUs)
	if !ok {
		return "", handlers.APIError(http.StatusUnprocessableEntity, models.Invalid("reserve_region", "no priced spec there can provide the cards"))
	}
	return spec, nil
}
