package people

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
	"kashi/models"
)

// TokenList lists the caller's API tokens. GET /api/v1/tokens.
func (h *Handler) TokenList(c echo.Context) error {
	toks, err := h.store.APITokens(c.Request().Context(), handlers.Who(c).User.ID)
	if err != nil {
		return err
	}
	out := make([]api.Token, len(toks))
	for i, t := range toks {
		out[i] = api.Token{ID: t.ID, Name: t.Name, Scope: t.Scope, CreatedAt: t.CreatedAt, LastUsedAt: t.LastUsedAt, RevokedAt: t.RevokedAt}
	}
	return c.JSON(http.StatusOK, out)
}

// TokenCreate makes an API token for the caller and shows it once.
// POST /api/v1/tokens {"name": …, "scope": "read"|"write"}.
func (h *Handler) TokenCreate(c echo.Context) error {
	var b api.TokenRequest
	if err := handlers.DecodeJSON(c, 4<<10, &b); err != nil {
		return err
	}
	ctx := c.Request().Context()
	u := handlers.Who(c).User
	token, t, err := h.store.CreateAPIToken(ctx, u.ID, b.Name, b.Scope, h.Now())
	if err != nil {
		return handlers.APIError(http.StatusUnprocessableEntity, err)
	}
	if err := h.store.Audit(ctx, h.Now(), u.Name, models.AuditTokenCreate, nil, "token "+t.Name, nil, map[string]string{"name": t.Name, "scope": t.Scope}); err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, api.NewToken{Token: api.Token{ID: t.ID, Name: t.Name, Scope: t.Scope, CreatedAt: t.CreatedAt}, Secret: token})
}

// TokenRevoke revokes one of the caller's tokens. POST /api/v1/tokens/:id/revoke.
func (h *Handler) TokenRevoke(c echo.Context) error {
	if err := h.revokeToken(c); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// revokeToken revokes the caller's token :id and records it in the audit log.
func (h *Handler) revokeToken(c echo.Context) error {
	id, err := handlers.PathID(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	u := handlers.Who(c).User
	if err := h.store.RevokeAPIToken(ctx, u.ID, id, h.Now()); err != nil {
		return handlers.StoreError(err)
	}
	return h.store.Audit(ctx, h.Now(), u.Name, models.AuditTokenRevoke, nil, "token", nil, map[string]int64{"id": id})
}
