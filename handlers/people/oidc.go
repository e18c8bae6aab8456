package people

import (
	"crypto/subtle"
	"errors"
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
	"kashi/models"
	"kashi/sso"
	peopleview "kashi/views/people"
)

// ssoCookie binds a sign-in at the provider to the browser that began it: it holds the
// sign-in's state, which the provider's return must carry, so a return started in another
// browser (login CSRF) is refused. SameSite=Lax: the return is a top-level GET from the
// provider's site.
const ssoCookie = "kashi_sso"

// OIDCBegin starts a sign-in at the OpenID provider: a fresh state, nonce and PKCE verifier
// kept for ten minutes (the state's hash in the store, the state itself in the browser's
// cookie), then off to the provider. GET /login/oidc; 404 without a provider.
func (h *Handler) OIDCBegin(c echo.Context) error {
	if h.Cfg.OIDC == nil {
		return echo.ErrNotFound
	}
	next := localPath(c.QueryParam("next"))
	s, err := h.Cfg.OIDC.Begin(c.Request().Context())
	if err != nil {
		c.Logger().Error(err)
		return h.loginProblem(c, http.StatusBadGateway, next, handlers.Locale(c).T("login.sso_unreachable"))
	}
	if err := h.store.SaveSSOState(c.Request().Context(), s.State, s.Nonce, s.Verifier, next, h.Now()); err != nil {
		return err
	}
	c.SetCookie(&http.Cookie{Name: ssoCookie, Value: s.State, Path: "/login/oidc", HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: h.secure(c), MaxAge: 600})
	return c.Redirect(http.StatusSeeOther, s.URL)
}

// OIDCCallback finishes a sign-in: the state must be this browser's and unused, the code is
// exchanged with the sign-in's verifier, the ID token checked (signature, issuer, this
// client, expiry, the sign-in's nonce); then the user is found or created and given what
// their groups map to, and a session opens. GET /login/oidc/callback.
func (h *Handler) OIDCCallback(c echo.Context) error {
	if h.Cfg.OIDC == nil {
		return echo.ErrNotFound
	}
	ctx := c.Request().Context()
	state := c.QueryParam("state")
	ck, err := c.Cookie(ssoCookie)
	c.SetCookie(&http.Cookie{Name: ssoCookie, Value: "", Path: "/login/oidc", HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: h.secure(c), MaxAge: -1})
	if err != nil || state == "" || subtle.ConstantTimeCompare([]byte(ck.Value), []byte(state)) != 1 {
		return h.loginProblem(c, http.StatusBadRequest, "/", handlers.Locale(c).T("login.sso_expired"))
	}
	st, err := h.store.TakeSSOState(ctx, state, h.Now())
	if errors.Is(err, models.ErrNotFound) {
		return h.loginProblem(c, http.StatusBadRequest, "/", handlers.Locale(c).T("login.sso_expired"))
	} else if err != nil {
		return err
	}
	next := localPath(st.Next)
	if c.QueryParam("error") != "" {
		return h.loginProblem(c, http.StatusUnauthorized, next, handlers.Locale(c).T("login.sso_failed"))
	}
	id, err := h.Cfg.OIDC.Finish(ctx, c.QueryParam("code"), st.Verifier, st.Nonce)
	if errors.Is(err, sso.ErrRefused) {
		c.Logger().Warn(err)
		if err := h.store.Audit(ctx, h.Now(), models.SourceOIDC, models.AuditLoginFailed, nil, "login", nil, map[string]string{"method": models.SourceOIDC}); err != nil {
			return err
		}
		return h.loginProblem(c, http.StatusUnauthorized, next, handlers.Locale(c).T("login.sso_failed"))
	} else if err != nil {
		c.Logger().Error(err)
		return h.loginProblem(c, http.StatusBadGateway, next, handlers.Locale(c).T("login.sso_unreachable"))
	}
	_, token, err := h.store.SignInExternal(ctx, models.ExternalIdentity{Method: models.SourceOIDC, ID: id.ID, Name: id.Name, Groups: id.Groups},
		h.Cfg.SSORules, h.Cfg.Sessions, h.Now())
	if errors.Is(err, models.ErrDisabled) {
		return h.loginProblem(c, http.StatusForbidden, next, handlers.Locale(c).T("login.sso_disabled"))
	} else if err != nil {
		return err
	}
	h.setSession(c, token)
	handlers.RenewCSRF(c, h.secure(c))
	return c.Redirect(http.StatusSeeOther, next)
}

// loginProblem shows the login page with a sign-in's problem, in the page's language.
func (h *Handler) loginProblem(c echo.Context, status int, next, problem string) error {
	d := h.loginData(next)
	d.Problem = problem
	return handlers.Render(c, status, peopleview.Login(handlers.Locale(c), d))
}

// loginData is the login page's state: where to go next and the sign-in methods offered.
func (h *Handler) loginData(next string) peopleview.LoginData {
	d := peopleview.LoginData{Next: next, Demo: h.Cfg.Demo, PasswordAdminsOnly: h.Cfg.PasswordAdminsOnly,
		Directory: h.Cfg.LDAP != nil}
	if h.Cfg.OIDC != nil {
		d.Methods = append(d.Methods, peopleview.LoginMethod{Name: h.Cfg.OIDC.Name(), URL: "/login/oidc?next=" + url.QueryEscape(next)})
	}
	return d
}
