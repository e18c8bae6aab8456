package people

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
	"kashi/models"
)

// tokenJSON is an API token as listed: never the token itself.
type tokenJSON struct {
	ID         int64      `json:"id"`
	Name       string     `json:"name"`
	Scope      string     `json:"scope"`
	CreatedAt  time.Time  `json:"created_at"`
	LastUsedAt *time.Time `json:"last_used_at"`
	RevokedAt  *time.Time `json:"revoked_at"`
}

// TokenList lists the caller's API tokens. GET /api/v1/tokens.
func (h *Handler) TokenList(c echo.Context) error {
	toks, err := h.store.APITokens(c.Request().Context(), handlers.Who(c).User.ID)
	if err != nil {
		return err
	}
	out := make([]tokenJSON, len(toks))
	for i, t := range toks {
		out[i] = tokenJSON{ID: t.ID, Name: t.Name, Scope: t.Scope, CreatedAt: t.CreatedAt, LastUsedAt: t.LastUsedAt, RevokedAt: t.RevokedAt}
	}
	return c.JSON(http.StatusOK, out)
}

// TokenCreate makes an API token for the caller and shows it once.
// POST /api/v1/tokens {"name": …, "scope": "read"|"write"}.
func (h *Handler) TokenCreate(c echo.Context) error {
	var b struct {
		Name  string `json:"name"`
		Scope string `json:"scope"`
	}
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
	return c.JSON(http.StatusCreated, struct {
		tokenJSON
		Token string `json:"token"`
	}{tokenJSON{ID: t.ID, Name: t.Name, Scope: t.Scope, CreatedAt: t.CreatedAt}, token})
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
