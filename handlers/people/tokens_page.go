package people

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
	"kashi/models"
	peopleview "kashi/views/people"
)

// TokensPage lists the caller's API tokens. GET /tokens.
func (h *Handler) TokensPage(c echo.Context) error {
	return h.renderTokens(c, http.StatusOK, "", "")
}

func (h *Handler) renderTokens(c echo.Context, status int, newToken, problem string) error {
	toks, err := h.store.APITokens(c.Request().Context(), handlers.Who(c).User.ID)
	if err != nil {
		return err
	}
	d := peopleview.TokensData{NewToken: newToken, Error: problem}
	for _, t := range toks {
		d.Tokens = append(d.Tokens, peopleview.TokenView{ID: t.ID, Name: t.Name, Scope: t.Scope, CreatedAt: t.CreatedAt,
			LastUsedAt: t.LastUsedAt, Revoked: t.RevokedAt != nil})
	}
	return handlers.Render(c, status, peopleview.Tokens(handlers.Locale(c), d))
}

// TokenFormCreate makes a token from the tokens page and shows it once. POST /tokens.
func (h *Handler) TokenFormCreate(c echo.Context) error {
	ctx := c.Request().Context()
	u := handlers.Who(c).User
	token, t, err := h.store.CreateAPIToken(ctx, u.ID, c.FormValue("name"), c.FormValue("scope"), h.Now())
	if err != nil {
		return h.renderTokens(c, http.StatusUnprocessableEntity, "", handlers.Problem(handlers.Locale(c), err))
	}
	if err := h.store.Audit(ctx, h.Now(), u.Name, models.AuditTokenCreate, nil, "token "+t.Name, nil, map[string]string{"name": t.Name, "scope": t.Scope}); err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	return h.renderTokens(c, http.StatusCreated, token, "")
}

// TokenFormRevoke revokes a token from the tokens page. POST /tokens/:id/revoke.
func (h *Handler) TokenFormRevoke(c echo.Context) error {
	if err := h.revokeToken(c); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/tokens")
}
