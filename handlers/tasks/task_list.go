package tasks

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
	"kashi/models"
)

// TaskList lists the tasks of the caller's projects (all for admins), newest first. GET /api/v1/tasks?project=&state=&limit=.
func (h *Handler) TaskList(c echo.Context) error {
	state, err := stateParam(c)
	if err != nil {
		return err
	}
	f := models.TaskFilter{Project: c.QueryParam("project"), State: string(state), ProjectIDs: handlers.VisibleProjects(handlers.Who(c))}
	if v := c.QueryParam("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			return handlers.BadRequest("limit", "limit must be between 1 and 1000")
		}
		f.Limit = n
	}
	rows, err := h.store.Tasks(c.Request().Context(), f)
	if err != nil {
		return err
	}
	out := make([]api.Task, len(rows))
	for i, r := range rows {
		out[i] = h.taskJSON(handlers.Locale(c), r)
	}
	return c.JSON(http.StatusOK, out)
}
