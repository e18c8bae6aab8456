package projects

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
	"kashi/models"
)

// toRequestJSON is a quota request as the API shows it.
func toRequestJSON(r models.QuotaRequestRow) api.QuotaRequest {
	return api.QuotaRequest{ID: r.ID, Project: r.Project, Spec: r.Spec, Kind: r.Kind, Change: api.QuotaChange(r.Parsed()), Reason: r.Reason,
		Requester: r.Requester, State: r.State, Comment: r.Comment, CreatedAt: r.CreatedAt, DecidedAt: r.DecidedAt}
}

// RequestList lists the quota requests of the caller's projects (all for admins).
// GET /api/v1/requests?state=pending.
func (h *Handler) RequestList(c echo.Context) error {
	rows, err := h.store.QuotaRequests(c.Request().Context(), handlers.VisibleProjects(handlers.Who(c)), c.QueryParam("state"))
	if err != nil {
		return err
	}
	out := make([]api.QuotaRequest, len(rows))
	for i, r := range rows {
		out[i] = toRequestJSON(r)
	}
	return c.JSON(http.StatusOK, out)
}
