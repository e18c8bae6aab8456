package tasks

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// runsShown is how many of a schedule's latest runs its template's page shows.
const runsShown = 20

// TemplateShow shows a template with its uses, versions (newest first) and schedules, each
// with its next five runs and latest runs. GET /api/v1/templates/:id.
func (h *Handler) TemplateShow(c echo.Context) error {
	t, err := h.seenTemplate(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	uses, err := h.store.TemplateUses(ctx, t.ID)
	if err != nil {
		return err
	}
	out := toTemplateJSON(t, uses)
	versions, err := h.store.TemplateVersions(ctx, t.ID)
	if err != nil {
		return err
	}
	for _, v := range versions {
		out.Versions = append(out.Versions, toVersionJSON(v))
	}
	schedules, err := h.store.Schedules(ctx, t.ID)
	if err != nil {
		return err
	}
	for _, ts := range schedules {
		runs, err := h.store.ScheduleRuns(ctx, ts.ID, runsShown)
		if err != nil {
			return err
		}
		out.Schedules = append(out.Schedules, toScheduleJSON(ts, runs, h.Now()))
	}
	return c.JSON(http.StatusOK, out)
}
