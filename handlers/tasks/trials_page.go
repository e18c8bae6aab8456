package tasks

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
	tasksview "kashi/views/tasks"
)

// TrialsPage lists the latest trials of the projects the viewer sees (every project's for an
// admin), newest first, or of ?project=, each with what it tries, its state and its
// proposal once every run has ended, as GET /api/v1/trials lists them. GET /trials.
func (h *Handler) TrialsPage(c echo.Context) error {
	d := tasksview.TrialsData{Now: h.Now().In(h.Loc()), Project: c.QueryParam("project")}
	trials, err := h.visibleTrials(c, d.Project)
	if err != nil {
		return err
	}
	for i := range trials {
		trials[i].CreatedAt = trials[i].CreatedAt.In(h.Loc())
	}
	d.Trials = trials
	projects, err := h.store.Projects(c.Request().Context())
	if err != nil {
		return err
	}
	for _, p := range projects {
		if handlers.Who(c).CanSee(p.ID) {
			d.Projects = append(d.Projects, p.Name)
		}
	}
	return handlers.Render(c, http.StatusOK, tasksview.Trials(handlers.Locale(c), d))
}
