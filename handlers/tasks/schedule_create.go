package tasks

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
	"kashi/models"
	"kashi/schedule"
)

// ScheduleCreate runs a template on a cron expression in a time zone (the project's leads
// and admins); the tasks are the caller's. Overlap defaults to skip and the start deadline to
// an hour. POST /api/v1/templates/:id/schedules.
func (h *Handler) ScheduleCreate(c echo.Context) error {
	t, err := h.seenTemplate(c)
	if err != nil {
		return err
	}
	if err := leads(c, t.ProjectID); err != nil {
		return err
	}
	req := api.ScheduleRequest{Overlap: string(schedule.OverlapSkip), StartDeadlineS: 3600}
	if err := handlers.DecodeJSON(c, 4<<10, &req); err != nil {
		return err
	}
	if err := checkCron(req.Cron, req.TimeZone); err != nil {
		return handlers.APIError(http.StatusUnprocessableEntity, err)
	}
	ts, err := h.store.CreateSchedule(c.Request().Context(), models.TaskSchedule{TemplateID: t.ID, Cron: req.Cron,
		TimeZone: req.TimeZone, Overlap: req.Overlap, StartDeadlineS: req.StartDeadlineS, Owner: handlers.Who(c).User.Name}, h.Now())
	if errors.Is(err, models.ErrForbidden) {
		return handlers.APIError(http.StatusForbidden, err)
	}
	if err != nil {
		return handlers.StoreError(err)
	}
	return c.JSON(http.StatusCreated, toScheduleJSON(ts, nil, h.Now()))
}
