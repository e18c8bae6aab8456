package agent

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
	"kashi/models"
)

// AgentRegister records a node and its GPUs and returns the node's own token.
// POST /api/v1/agent/register, authenticated by the shared join token (unless an admin
// revoked it) or a single-use join token (bound to the request's machine_id, or to a node).
// A node's hostname, machine id and GPUs are its own: the node registers again with its own
// token in X-Kashi-Node-Token, or with a single-use token bound to it or its machine id; a
// registration that would take another node's is 409 naming the field, audited and alerted.
func (h *Handler) AgentRegister(c echo.Context) error {
	ctx := c.Request().Context()
	tok, ok := handlers.Bearer(c)
	if !ok {
		return handlers.Unauthorized("registration needs a join token")
	}
	var req api.RegisterRequest
	if err := handlers.DecodeJSON(c, api.MaxBodyBytes, &req); err != nil {
		return err
	}
	reg := registrationOf(req)
	if h.joinTokenOK(c) {
		revoked, err := h.store.SharedJoinTokenRevoked(ctx)
		if err != nil {
			return err
		}
		if revoked {
			return handlers.Unauthorized("the shared join token was revoked: ask an admin for a single-use join token")
		}
	} else {
		reg.JoinTokenHash = models.HashToken(tok)
	}
	reg.From = c.Request().RemoteAddr
	if nt := c.Request().Header.Get(api.HeaderNodeToken); nt != "" {
		reg.NodeTokenHash = models.HashToken(nt)
	}
	token, hash := models.NewToken("kn_")
	node, err := h.store.RegisterNode(ctx, reg, hash, h.Now())
	switch {
	case errors.Is(err, models.ErrNotFound):
		return handlers.Unauthorized("unknown, used or revoked join token, or one issued for another machine_id")
	case errors.Is(err, models.ErrConflict):
		return handlers.APIError(http.StatusConflict, err)
	case err != nil:
		return handlers.APIError(http.StatusUnprocessableEntity, err)
	}
	// Its cards are free for the tasks waiting now, not at the next tick.
	h.Sched.Trigger()
	images, err := h.store.PrePullImages(ctx, node.PoolID)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, api.RegisterResponse{NodeID: node.ID, Token: token, PrePull: images})
}
