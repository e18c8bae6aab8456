package agent

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
)

// AgentTaskStatus records a task's process starting or exiting on the authenticated node; an
// exit frees its GPUs for the next tick, which it wakes. POST /api/v1/agent/tasks/:id/status.
func (h *Handler) AgentTaskStatus(c echo.Context) error {
	id, err := handlers.PathID(c)
	if err != nil {
		return err
	}
	var req api.TaskStatusRequest
	if err := handlers.DecodeJSON(c, 64<<10, &req); err != nil {
		return err
	}
	if err := h.store.ReportTaskStatus(c.Request().Context(), agentNode(c).ID, id, reportOf(req), h.Now()); err != nil {
		return handlers.StoreError(err)
	}
	if req.State != api.TaskRunning {
		h.Sched.Trigger()
	}
	return c.NoContent(http.StatusNoContent)
}
