package handlers

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/models"
)

// RequestApprove approves a pending request of a project the caller leads; the change applies
// at once. POST /api/v1/requests/:id/approve.
func (h *Projects) RequestApprove(c echo.Context) error { return h.decideRequest(c, true) }

// RequestReject rejects a pending request. POST /api/v1/requests/:id/reject.
func (h *Projects) RequestReject(c echo.Context) error { return h.decideRequest(c, false) }

func (h *Projects) decideRequest(c echo.Context, approve bool) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	var b struct {
		Comment string `json:"comment"`
	}
	if c.Request().ContentLength != 0 {
		if err := decodeJSON(c, 16<<10, &b); err != nil {
			return err
		}
	}
	req, err := h.decide(c, id, approve, b.Comment)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, toRequestJSON(req))
}

// decide checks the caller leads the request's project and records the decision.
func (h *Projects) decide(c echo.Context, id int64, approve bool, comment string) (models.QuotaRequestRow, error) {
	ctx := c.Request().Context()
	rows, err := h.store.QuotaRequests(ctx, visibleProjects(Who(c)), "")
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
		return models.QuotaRequestRow{}, storeError(models.ErrNotFound)
	case !Who(c).Leads(row.ProjectID):
		return models.QuotaRequestRow{}, forbidden("only the project's leads decide its requests")
	}
	req, err := h.store.DecideQuotaRequest(ctx, Who(c).User, id, approve, comment, h.now())
	if errors.Is(err, models.ErrForbidden) {
		return models.QuotaRequestRow{}, forbidden("nobody decides their own request")
	}
	if err != nil {
		return models.QuotaRequestRow{}, storeError(err)
	}
	h.sched.Trigger()
	row.QuotaRequest = req
	return *row, nil
}
