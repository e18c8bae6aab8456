package agent

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
)

// joinTokenJSON is an issued single-use join token; the token is shown once.
type joinTokenJSON struct {
	ID        int64     `json:"id"`
	Token     string    `json:"token"`
	MachineID string    `json:"machine_id"`
	CreatedAt time.Time `json:"created_at"`
}

// JoinTokenCreate issues a single-use join token bound to a machine id (admins only).
// POST /api/v1/join-tokens {"machine_id": …}.
func (h *Handler) JoinTokenCreate(c echo.Context) error {
	var b struct {
		MachineID string `json:"machine_id"`
	}
	if err := handlers.DecodeJSON(c, 4<<10, &b); err != nil {
		return err
	}
	tok, jt, err := h.store.CreateJoinToken(c.Request().Context(), handlers.Who(c).User.Name, b.MachineID, h.Now())
	if err != nil {
		return handlers.APIError(http.StatusUnprocessableEntity, err)
	}
	return c.JSON(http.StatusCreated, joinTokenJSON{ID: jt.ID, Token: tok, MachineID: jt.MachineID, CreatedAt: jt.CreatedAt})
}

// JoinTokenRevokeShared stops the shared join token from registering nodes (admins only).
// POST /api/v1/join-tokens/shared/revoke.
func (h *Handler) JoinTokenRevokeShared(c echo.Context) error {
	if err := h.store.RevokeSharedJoinToken(c.Request().Context(), handlers.Who(c).User.Name, h.Now()); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}
