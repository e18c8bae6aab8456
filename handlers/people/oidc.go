package people

import (
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
	"kashi/models"
	"kashi/phrase"
	peopleview "kashi/views/people"
)

// OIDCBegin starts a sign-in at the OpenID provider: a fresh state, nonce and PKCE verifier
// kept for ten minutes, then off to the provider. GET /login/oidc; 404 without a provider.
func (h *Handler) OIDCBegin(c echo.Context) error {
	if h.Cfg.OIDC == nil {
		return echo.ErrNotFound
	}
	next := localPath(c.QueryParam("next"))
	if answered, err := h.tooMany(c, next); answered {
		return err
	}
	s, err := h.Cfg.OIDC.Begin(c.Request().Context())
	if err != nil {
		c.Logger().Error(err)
		return h.loginProblem(c, http.StatusBadGateway, next, handlers.Locale(c).T("login.sso_unreachable"))
	}
	return h.beginSignIn(c, models.SourceOIDC, "/login/oidc", s.State, s.Nonce, s.Verifier, next, s.URL)
}

// OIDCCallback finishes a sign-in: the state must be this browser's and unused, the code is
// exchanged with the sign-in's verifier, the ID token checked (signature, issuer, this
// client, expiry, the sign-in's nonce); then the user is found or created and given what
// their groups map to, and a session opens. GET /login/oidc/callback.
func (h *Handler) OIDCCallback(c echo.Context) error {
	if h.Cfg.OIDC == nil {
		return echo.ErrNotFound
	}
	if answered, err := h.tooMany(c, "/"); answered {
		return err
	}
	st, ok, err := h.takeSignIn(c, models.SourceOIDC, "/login/oidc")
	if !ok {
		return err
	}
	next := localPath(st.Next)
	if c.QueryParam("error") != "" {
		return h.loginProblem(c, http.StatusUnauthorized, next, handlers.Locale(c).T("login.sso_failed"))
	}
	id, err := h.Cfg.OIDC.Finish(c.Request().Context(), c.QueryParam("code"), st.Verifier, st.Nonce)
	return h.finishSignIn(c, models.SourceOIDC, next, models.ExternalIdentity{ID: id.ID, Name: id.Name, Groups: id.Groups, Refresh: id.Refresh}, err)
}

// loginProblem shows the login page with a sign-in's problem, in the page's language.
func (h *Handler) loginProblem(c echo.Context, status int, next, problem string) error {
	d := h.loginData(handlers.Locale(c), next)
	d.Problem = problem
	return handlers.Render(c, status, peopleview.Login(handlers.Locale(c), d))
}

// loginData is the login page's state: where to go next and the sign-in methods offered,
// named in l's language.
func (h *Handler) loginData(l phrase.Locale, next string) peopleview.LoginData {
	d := peopleview.LoginData{Next: next, Demo: h.Cfg.Demo, PasswordAdminsOnly: h.Cfg.PasswordAdminsOnly,
		Directory: h.Cfg.LDAP != nil}
	if h.Cfg.OIDC != nil {
		d.Methods = append(d.Methods, peopleview.LoginMethod{Name: h.Cfg.OIDC.Name(), URL: "/login/oidc?next=" + url.QueryEscape(next)})
	}
	for _, chat := range h.Cfg.Chats {
		d.Methods = append(d.Methods, peopleview.LoginMethod{Name: peopleview.ChatName(l, chat.Platform()),
			URL: "/login/chat/" + chat.Platform() + "?next=" + url.QueryEscape(next)})
	}
	return d
}
