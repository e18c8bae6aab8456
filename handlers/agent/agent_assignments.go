package agent

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
)

// AgentAssignments lists what the authenticated node should run, after recording the tasks
// the node says run (?running=1,2). GET /api/v1/agent/assignments.
func (h *Handler) AgentAssignments(c echo.Context) error {
	running, err := runningOf(c.QueryParam(api.QueryRunning))
	if err != nil {
		return handlers.APIError(http.StatusBadRequest, err)
	}
	if err := h.store.ConfirmRunning(c.Request().Context(), agentNode(c).ID, running, h.Now()); err != nil {
		return err
	}
	tasks, err := h.store.Assignments(c.Request().Context(), agentNode(c).ID)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, assignmentsOf(tasks))
}
