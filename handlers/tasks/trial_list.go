package tasks

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
	"kashi/models"
)

// trialListLimit is how many of the latest trials the list holds.
const trialListLimit = 50

// visibleTrials is the latest trials, newest first, of project name (one the caller sees;
// 404 otherwise) or, when name is "", of every project the caller sees (every project's for
// an admin), each with its figures and proposal: what GET /api/v1/trials and the trials
// page both list.
func (h *Handler) visibleTrials(c echo.Context, name string) ([]api.Trial, error) {
	ctx, who := c.Request().Context(), handlers.Who(c)
	ids := handlers.VisibleProjects(who)
	if name != "" {
		p, err := h.store.ProjectByName(ctx, name)
		if err != nil || !who.CanSee(p.ID) {
			return nil, handlers.StoreError(models.ErrNotFound)
		}
		ids = []int64{p.ID}
	}
	trials, err := h.store.Trials(ctx, ids, trialListLimit)
	if err != nil {
		return nil, err
	}
	out := make([]api.Trial, 0, len(trials))
	for _, tr := range trials {
		j, err := h.trialJSON(ctx, tr, h.Now())
		if err != nil {
			return nil, err
		}
		out = append(out, j)
	}
	return out, nil
}

// TrialList is the latest trials, newest first, of ?project= (a project the caller sees;
// 404 otherwise) or of every project the caller sees, each with its figures and proposal.
// GET /api/v1/trials.
func (h *Handler) TrialList(c echo.Context) error {
	trials, err := h.visibleTrials(c, c.QueryParam("project"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, api.TrialList{Trials: trials})
}
