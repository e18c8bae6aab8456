package projects

import (
	"cmp"
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
	"kashi/models"
)

// RequestApprove approves a pending request of a project the caller leads; the change applies
// at once. Above the project's contract only an admin approves: a lead gets 403 naming the
// field. POST /api/v1/requests/:id/approve.
func (h *Handler) RequestApprove(c echo.Context) error { return h.decideRequest(c, true) }

// RequestReject rejects a pending request with the reason the requester reads ("reason", or
// its older name "comment"; 422 naming reason without one). POST /api/v1/requests/:id/reject.
func (h *Handler) RequestReject(c echo.Context) error { return h.decideRequest(c, false) }

func (h *Handler) decideRequest(c echo.Context, approve bool) error {
	id, err := handlers.PathID(c)
	if err != nil {
		return err
	}
	var b api.RequestDecision
	if c.Request().ContentLength != 0 {
		if err := handlers.DecodeJSON(c, 16<<10, &b); err != nil {
			return err
		}
	}
	req, err := h.decide(c, id, approve, cmp.Or(b.Reason, b.Comment))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, toRequestJSON(req))
}

// decide checks the caller leads the request's project and records the decision.
func (h *Handler) decide(c echo.Context, id int64, approve bool, comment string) (models.QuotaRequestRow, error) {
	ctx := c.Request().Context()
	rows, err := h.store.QuotaRequests(ctx, handlers.VisibleProjects(handlers.Who(c)), "")
	if err != nil {
		return models.QuotaRequestRow{}, err
	}
	var row *models.QuotaRequestRow
	for i := range rows {
		if rows[i].ID == id {
			row = &rows[i]
		}
	}
	switch {
	case row == nil:
		return models.QuotaRequestRow{}, handlers.StoreError(models.ErrNotFound)
	case !handlers.Who(c).Leads(row.ProjectID):
		return models.QuotaRequestRow{}, handlers.Forbidden("only the project's leads decide its requests")
	}
	req, err := h.store.DecideQuotaRequest(ctx, handlers.Who(c).User, id, approve, comment, h.Now())
	var fe *models.FieldError
	switch {
	case errors.Is(err, models.ErrForbidden) && errors.As(err, &fe): // above the contract: an admin's
		return models.QuotaRequestRow{}, handlers.APIError(http.StatusForbidden, err)
	case errors.Is(err, models.ErrForbidden):
		return models.QuotaRequestRow{}, handlers.Forbidden("nobody decides their own request")
	}
	if err != nil {
		return models.QuotaRequestRow{}, handlers.StoreError(err)
	}
	h.Sched.Trigger()
	row.QuotaRequest = req
	return *row, nil
}
