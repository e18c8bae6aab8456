package people

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
	"kashi/models"
	"kashi/sso"
	peopleview "kashi/views/people"
)

// LoginForm shows the login form. GET /login.
func (h *Handler) LoginForm(c echo.Context) error {
	d := h.loginData(handlers.Locale(c), localPath(c.QueryParam("next")))
	return handlers.Render(c, http.StatusOK, peopleview.Login(handlers.Locale(c), d))
}

// Login checks a user name and password and opens a session with a new CSRF token.
// POST /login. Failed logins are throttled per account and per client address
// (login_throttle.go): while throttled every try is refused with 429 and the wait, and
// writes no audit row; so is every try past an address's rate (login_rate.go).
func (h *Handler) Login(c echo.Context) error {
	ctx := c.Request().Context()
	name, password := c.FormValue("username"), c.FormValue("password")
	next := localPath(c.FormValue("next"))
	// The failed-login throttle first: its wait is the one that matters to a throttled
	// account, however many requests its address also sent.
	account, addr := truncated(name), handlers.ClientAddr(c)
	try, wait := h.logins.begin(account, addr, h.Now())
	if wait > 0 {
		d := h.loginData(handlers.Locale(c), next)
		d.Name, d.RetryIn = name, retryAfter(c, wait)
		return handlers.Render(c, http.StatusTooManyRequests, peopleview.Login(handlers.Locale(c), d))
	}
	defer try.done()
	if answered, err := h.tooMany(c, next); answered {
		return err
	}
	u, err := h.store.Authenticate(ctx, name, password)
	if err == nil && h.Cfg.PasswordAdminsOnly && u.Role != models.RoleAdmin {
		// Password sign-in is turned off but for break-glass admins: the same answer as a
		// wrong password, so it tells nothing of the account.
		err = models.ErrNotFound
	}
	if errors.Is(err, models.ErrNotFound) && h.Cfg.LDAP != nil {
		// Not a local user's name and password: the directory's?
		token, ok, err := h.ldapSignIn(c, name, password)
		if err != nil {
			return err
		}
		if ok {
			try.succeeded()
			h.setSession(c, token)
			handlers.RenewCSRF(c, h.secure(c))
			return c.Redirect(http.StatusSeeOther, next)
		}
	}
	if errors.Is(err, models.ErrNotFound) {
		try.failed(h.Now())
		if err := h.store.Audit(ctx, h.Now(), truncated(name), models.AuditLoginFailed, nil, "login", nil, nil); err != nil {
			return err
		}
		d := h.loginData(handlers.Locale(c), next)
		d.Name, d.Error = name, true
		return handlers.Render(c, http.StatusUnauthorized, peopleview.Login(handlers.Locale(c), d))
	}
	if err != nil {
		return err
	}
	try.succeeded()
	token, err := h.store.OpenSession(ctx, u, models.MethodPassword, h.Cfg.Sessions, h.Now())
	if err != nil {
		return err
	}
	h.setSession(c, token)
	handlers.RenewCSRF(c, h.secure(c))
	return c.Redirect(http.StatusSeeOther, next)
}

// Logout ends the session. POST /logout. A session that signed in at the OpenID provider
// goes on to end the provider's session too (RP-initiated logout), coming back to the login
// page, when the provider offers it.
func (h *Handler) Logout(c echo.Context) error {
	ctx := c.Request().Context()
	to := "/login"
	if ck, err := c.Cookie(SessionCookie); err == nil && ck.Value != "" {
		method, _ := h.store.SessionMethod(ctx, ck.Value)
		if err := h.store.DeleteSession(ctx, ck.Value); err != nil {
			return err
		}
		if method == models.SourceOIDC && h.Cfg.OIDC != nil && h.Cfg.PublicURL != "" {
			if u := h.Cfg.OIDC.LogoutURL(ctx, strings.TrimSuffix(h.Cfg.PublicURL, "/")+"/login"); u != "" {
				to = u
			}
		}
	}
	h.clearSession(c)
	return c.Redirect(http.StatusSeeOther, to)
}

// retryAfter tells a throttled client its wait, rounded up to whole seconds: in the
// Retry-After header, and as the text the page shows.
func retryAfter(c echo.Context, wait time.Duration) string {
	secs := int64((wait + time.Second - 1) / time.Second)
	c.Response().Header().Set("Retry-After", strconv.FormatInt(secs, 10))
	return (time.Duration(secs) * time.Second).String()
}

// truncated keeps at most 100 bytes of a name typed into the login form, for the audit log.
func truncated(s string) string {
	if len(s) > 100 {
		return s[:100]
	}
	return s
}

// ldapSignIn checks name and password against the LDAP directory and signs the person in
// (created on their first sign-in, their groups' rules applied); ok is false for a name or
// password the directory refuses, a user disabled in Kashi, or a directory that does not
// answer (logged), so the form answers as for a wrong password.
func (h *Handler) ldapSignIn(c echo.Context, name, password string) (token string, ok bool, err error) {
	ctx := c.Request().Context()
	id, err := h.Cfg.LDAP.SignIn(ctx, name, password)
	if err != nil {
		if !errors.Is(err, sso.ErrRefused) {
			c.Logger().Error(err)
		}
		return "", false, nil
	}
	_, token, err = h.store.SignInExternal(ctx, models.ExternalIdentity{Method: models.SourceLDAP, ID: id.ID, Name: id.Name, Groups: id.Groups},
		h.Cfg.SSORules, h.Cfg.Sessions, h.Now())
	if errors.Is(err, models.ErrDisabled) {
		return "", false, nil
	}
	return token, err == nil, err
}
