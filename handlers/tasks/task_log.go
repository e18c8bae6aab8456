package tasks

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
)

// TaskLog returns the end of a task's log (at most 64 KiB) as plain text; the full log stays
// on its node under <state-dir>/tasks/<id>/output.log. api.HeaderLogEndOffset is the byte
// offset of the log file just past the text. GET /api/v1/tasks/:id/log.
func (h *Handler) TaskLog(c echo.Context) error {
	id, err := handlers.PathID(c)
	if err != nil {
		return err
	}
	if _, err := h.visibleTask(c, id); err != nil {
		return err
	}
	l, err := h.store.TaskLogTail(c.Request().Context(), id)
	if err != nil {
		return err
	}
	c.Response().Header().Set(api.HeaderLogEndOffset, strconv.FormatInt(l.EndOffset, 10))
	return c.String(http.StatusOK, l.Tail)
}
