package tasks

import (
	"net/http"
	"slices"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
	"kashi/models"
)

// trialListLimit is how many of the latest trials the list holds.
const trialListLimit = 50

// TrialList is the latest trials, newest first, of ?project= (a project the caller sees;
// 404 otherwise) or of every project the caller sees, each with its figures and proposal.
// GET /api/v1/trials.
func (h *Handler) TrialList(c echo.Context) error {
	ctx, who := c.Request().Context(), handlers.Who(c)
	var ids []int64
	switch name := c.QueryParam("project"); {
	case name != "":
		p, err := h.store.ProjectByName(ctx, name)
		if err != nil || !who.CanSee(p.ID) {
			return handlers.StoreError(models.ErrNotFound)
		}
		ids = []int64{p.ID}
	case !who.Admin():
		ids = []int64{}
		for id := range who.Projects {
			ids = append(ids, id)
		}
		slices.Sort(ids)
	}
	trials, err := h.store.Trials(ctx, ids, trialListLimit)
	if err != nil {
		return err
	}
	out := api.TrialList{Trials: make([]api.Trial, 0, len(trials))}
	for _, tr := range trials {
		j, err := h.trialJSON(ctx, tr, h.Now())
		if err != nil {
			return err
		}
		out.Trials = append(out.Trials, j)
	}
	return c.JSON(http.StatusOK, out)
}
