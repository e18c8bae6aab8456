package tasks

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
	"kashi/models"
)

// ScheduleSuspend stops a schedule's runs. POST /api/v1/schedules/:id/suspend.
func (h *Handler) ScheduleSuspend(c echo.Context) error { return h.setSuspended(c, true) }

// ScheduleResume starts a schedule's runs again from now: runs that fell while it was
// suspended never start. POST /api/v1/schedules/:id/resume.
func (h *Handler) ScheduleResume(c echo.Context) error { return h.setSuspended(c, false) }

// setSuspended suspends or resumes the path's schedule (the project's leads and admins).
func (h *Handler) setSuspended(c echo.Context, suspended bool) error {
	ts, err := h.ledSchedule(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	if err := h.store.SetScheduleSuspended(ctx, ts.ID, suspended, h.Now()); err != nil {
		return handlers.StoreError(err)
	}
	if ts, err = h.store.ScheduleByID(ctx, ts.ID); err != nil {
		return handlers.StoreError(err)
	}
	runs, err := h.store.ScheduleRuns(ctx, ts.ID, runsShown)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, toScheduleJSON(ts, runs, h.Now()))
}

// ledSchedule loads the path's schedule when the caller leads its template's project;
// another project's is 404.
func (h *Handler) ledSchedule(c echo.Context) (models.TaskSchedule, error) {
	id, err := handlers.PathID(c)
	if err != nil {
		return models.TaskSchedule{}, err
	}
	ctx := c.Request().Context()
	ts, err := h.store.ScheduleByID(ctx, id)
	if err != nil {
		return ts, handlers.StoreError(err)
	}
	t, err := h.store.TemplateByID(ctx, ts.TemplateID)
	if err != nil {
		return ts, handlers.StoreError(err)
	}
	if !handlers.Who(c).CanSee(t.ProjectID) {
		return ts, handlers.StoreError(models.ErrNotFound)
	}
	return ts, leads(c, t.ProjectID)
}
