package people

import (
	"crypto/subtle"
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
	"kashi/models"
	"kashi/sso"
)

// ssoCookie binds a sign-in at a directory or chat to the browser that began it: it holds the
// sign-in's state, which the return must carry, so a return started in another browser
// (login CSRF) is refused. SameSite=Lax: the return is a top-level GET from the other site.
// Its path is the method's (/login/oidc, /login/chat/dingtalk …).
const ssoCookie = "kashi_sso"

// beginSignIn keeps a sign-in of method for ten minutes (the state's hash with the nonce,
// PKCE verifier and page to return to in the store, the state itself in the browser's cookie
// under path) and sends the browser to the directory's or chat's url.
func (h *Handler) beginSignIn(c echo.Context, method, path, state, nonce, verifier, next, url string) error {
	if err := h.store.SaveSSOState(c.Request().Context(), method, state, nonce, verifier, next, h.Now()); err != nil {
		return err
	}
	c.SetCookie(&http.Cookie{Name: ssoCookie, Value: state, Path: path, HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: h.secure(c), MaxAge: 600})
	return c.Redirect(http.StatusSeeOther, url)
}

// takeSignIn takes the sign-in of method the browser's return carries: its state must be
// the cookie's (which it clears) and unused; ok is false when it is not and the login page
// has answered.
func (h *Handler) takeSignIn(c echo.Context, method, path string) (st models.SSOState, ok bool, err error) {
	state := c.QueryParam("state")
	ck, cerr := c.Cookie(ssoCookie)
	c.SetCookie(&http.Cookie{Name: ssoCookie, Value: "", Path: path, HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: h.secure(c), MaxAge: -1})
	expired := func() (models.SSOState, bool, error) {
		return models.SSOState{}, false, h.loginProblem(c, http.StatusBadRequest, "/", handlers.Locale(c).T("login.sso_expired"))
	}
	if cerr != nil || state == "" || subtle.ConstantTimeCompare([]byte(ck.Value), []byte(state)) != 1 {
		return expired()
	}
	st, err = h.store.TakeSSOState(c.Request().Context(), method, state, h.Now())
	if errors.Is(err, models.ErrNotFound) {
		return expired()
	} else if err != nil {
		return models.SSOState{}, false, err
	}
	return st, true, nil
}

// finishSignIn ends a sign-in of method with what the directory or chat said: a refusal is
// audited and shown, a directory that did not answer is shown as such (and logged), and a
// person it vouched for is found or created, given what their groups map to, and signed in.
func (h *Handler) finishSignIn(c echo.Context, method, next string, id models.ExternalIdentity, err error) error {
	ctx := c.Request().Context()
	l := handlers.Locale(c)
	if errors.Is(err, sso.ErrRefused) {
		c.Logger().Warn(err)
		if err := h.store.Audit(ctx, h.Now(), method, models.AuditLoginFailed, nil, "login", nil, map[string]string{"method": method}); err != nil {
			return err
		}
		return h.loginProblem(c, http.StatusUnauthorized, next, l.T("login.sso_failed"))
	} else if err != nil {
		c.Logger().Error(err)
		return h.loginProblem(c, http.StatusBadGateway, next, l.T("login.sso_unreachable"))
	}
	id.Method = method
	_, token, err := h.store.SignInExternal(ctx, id, h.Cfg.SSORules, h.Cfg.Sessions, h.Now())
	if errors.Is(err, models.ErrDisabled) {
		return h.loginProblem(c, http.StatusForbidden, next, l.T("login.sso_disabled"))
	} else if err != nil {
		return err
	}
	h.setSession(c, token)
	handlers.RenewCSRF(c, h.secure(c))
	return c.Redirect(http.StatusSeeOther, next)
}
