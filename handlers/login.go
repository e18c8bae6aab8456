package handlers

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/models"
	"kashi/views"
)

// LoginForm shows the login form. GET /login.
func (h *People) LoginForm(c echo.Context) error {
	d := views.LoginData{Next: localPath(c.QueryParam("next")), Demo: h.cfg.Demo}
	return Render(c, http.StatusOK, views.Login(Locale(c), d))
}

// Login checks a user name and password and opens a session. POST /login.
func (h *People) Login(c echo.Context) error {
	ctx := c.Request().Context()
	name, password := c.FormValue("username"), c.FormValue("password")
	next := localPath(c.FormValue("next"))
	u, err := h.store.Authenticate(ctx, name, password)
	if errors.Is(err, models.ErrNotFound) {
		if err := h.store.Audit(ctx, h.now(), truncated(name), models.AuditLoginFailed, nil, "login", nil, nil); err != nil {
			return err
		}
		d := views.LoginData{Next: next, Name: name, Error: true, Demo: h.cfg.Demo}
		return Render(c, http.StatusUnauthorized, views.Login(Locale(c), d))
	}
	if err != nil {
		return err
	}
	token, err := h.store.CreateSession(ctx, u.ID, h.cfg.Sessions, h.now())
	if err != nil {
		return err
	}
	if err := h.store.Audit(ctx, h.now(), u.Name, models.AuditLogin, nil, "login", nil, nil); err != nil {
		return err
	}
	h.setSession(c, token)
	return c.Redirect(http.StatusSeeOther, next)
}

// Logout ends the session. POST /logout.
func (h *People) Logout(c echo.Context) error {
	if ck, err := c.Cookie(SessionCookie); err == nil && ck.Value != "" {
		if err := h.store.DeleteSession(c.Request().Context(), ck.Value); err != nil {
			return err
		}
	}
	h.clearSession(c)
	return c.Redirect(http.StatusSeeOther, "/login")
}

// truncated keeps at most 100 bytes of a name typed into the login form, for the audit log.
func truncated(s string) string {
	if len(s) > 100 {
		return s[:100]
	}
	return s
}
