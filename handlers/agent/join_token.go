package agent

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
)

// JoinTokenCreate issues a single-use join token bound to a machine id, to a registered node,
// or to both (admins only). POST /api/v1/join-tokens {"machine_id": …, "node_id": …}.
func (h *Handler) JoinTokenCreate(c echo.Context) error {
	var b api.JoinTokenRequest
	if err := handlers.DecodeJSON(c, 4<<10, &b); err != nil {
		return err
	}
	tok, jt, err := h.store.CreateJoinToken(c.Request().Context(), handlers.Who(c).User.Name, b.MachineID, b.NodeID, h.Now())
	if err != nil {
		return handlers.APIError(http.StatusUnprocessableEntity, err)
	}
	return c.JSON(http.StatusCreated, api.JoinToken{ID: jt.ID, Token: tok, MachineID: jt.MachineID, NodeID: jt.NodeID, CreatedAt: jt.CreatedAt})
}

// JoinTokenRevokeShared stops the shared join token from registering nodes (admins only).
// POST /api/v1/join-tokens/shared/revoke.
func (h *Handler) JoinTokenRevokeShared(c echo.Context) error {
	if err := h.store.RevokeSharedJoinToken(c.Request().Context(), handlers.Who(c).User.Name, h.Now()); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}
