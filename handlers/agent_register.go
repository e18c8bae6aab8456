package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/models"
)

// AgentRegister records a node and its GPUs and returns the node's own token.
// POST /api/v1/agent/register, authenticated by the join token.
func (h *Agent) AgentRegister(c echo.Context) error {
	if !h.joinTokenOK(c) {
		return unauthorized("registration needs the join token")
	}
	var req api.RegisterRequest
	if err := decodeJSON(c, api.MaxBodyBytes, &req); err != nil {
		return err
	}
	token, hash := models.NewToken("kn_")
	node, err := h.store.RegisterNode(c.Request().Context(), registrationOf(req), hash, h.now())
	if err != nil {
		return apiError(http.StatusUnprocessableEntity, err)
	}
	return c.JSON(http.StatusOK, api.RegisterResponse{NodeID: node.ID, Token: token})
}
