package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// AgentAssignments lists what the authenticated node should run.
// GET /api/v1/agent/assignments.
func (h *Agent) AgentAssignments(c echo.Context) error {
	tasks, err := h.store.Assignments(c.Request().Context(), agentNode(c).ID)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, assignmentsOf(tasks))
}
