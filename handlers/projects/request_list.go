package projects

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
	"kashi/models"
)

// requestJSON is a quota request in the API.
type requestJSON struct {
	ID        int64              `json:"id"`
	Project   string             `json:"project"`
	Spec      string             `json:"spec"`
	Kind      string             `json:"kind"`
	Change    models.QuotaChange `json:"change"`
	Reason    string             `json:"reason"`
	Requester string             `json:"requester"`
	State     string             `json:"state"`
	Comment   string             `json:"comment"`
	CreatedAt time.Time          `json:"created_at"`
	DecidedAt *time.Time         `json:"decided_at"`
}

func toRequestJSON(r models.QuotaRequestRow) requestJSON {
	return requestJSON{ID: r.ID, Project: r.Project, Spec: r.Spec, Kind: r.Kind, Change: r.Parsed(), Reason: r.Reason,
		Requester: r.Requester, State: r.State, Comment: r.Comment, CreatedAt: r.CreatedAt, DecidedAt: r.DecidedAt}
}

// RequestList lists the quota requests of the caller's projects (all for admins).
// GET /api/v1/requests?state=pending.
func (h *Handler) RequestList(c echo.Context) error {
	rows, err := h.store.QuotaRequests(c.Request().Context(), handlers.VisibleProjects(handlers.Who(c)), c.QueryParam("state"))
	if err != nil {
		return err
	}
	out := make([]requestJSON, len(rows))
	for i, r := range rows {
		out[i] = toRequestJSON(r)
	}
	return c.JSON(http.StatusOK, out)
}
