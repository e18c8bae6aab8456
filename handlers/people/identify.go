package people

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
	"kashi/models"
)

// SessionCookie holds the session token.
const SessionCookie = "kashi_session"

// Identify returns who makes the request: the user of an API token (Authorization: Bearer
// ka_…) or of the session cookie, nil when nobody is logged in. A token that is not valid is
// refused with 401; a session that expired is cleared.
func (h *Handler) Identify(c echo.Context) (*handlers.Principal, error) {
	ctx := c.Request().Context()
	if tok, ok := handlers.Bearer(c); ok {
		u, t, err := h.store.TokenUser(ctx, tok, h.Now())
		if errors.Is(err, models.ErrNotFound) {
			return nil, handlers.Unauthorized("unknown or revoked API token")
		}
		if err != nil {
			return nil, err
		}
		p, err := h.principal(c, u, t.Scope == models.ScopeRead)
		if p != nil {
			p.TokenID = t.ID
		}
		return p, err
	}
	ck, err := c.Cookie(SessionCookie)
	if err != nil || ck.Value == "" {
		return nil, nil
	}
	u, err := h.store.SessionUser(ctx, ck.Value, h.Cfg.Sessions, h.Now())
	if errors.Is(err, models.ErrNotFound) {
		h.clearSession(c)
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	p, err := h.principal(c, u, false)
	if err != nil {
		return nil, err
	}
	if p.Unread, err = h.store.UnreadNotifications(ctx, u.ID); err != nil {
		return nil, err
	}
	if p.Admin() || p.LeadsAny() {
		p.Pending, err = h.store.PendingRequests(ctx, ledProjects(p))
	}
	return p, err
}

// ledProjects are the projects p leads; nil (all) for admins.
func ledProjects(p *handlers.Principal) []int64 {
	if p.Admin() {
		return nil
	}
	ids := []int64{}
	for id, role := range p.Projects {
		if role == models.ProjectRoleLead {
			ids = append(ids, id)
		}
	}
	return ids
}

func (h *Handler) principal(c echo.Context, u models.User, readOnly bool) (*handlers.Principal, error) {
	projects, err := h.store.CallerRoles(c.Request().Context(), u.ID)
	if err != nil {
		return nil, err
	}
	return &handlers.Principal{User: u, Projects: projects, ReadOnly: readOnly}, nil
}

func (h *Handler) setSession(c echo.Context, token string) {
	c.SetCookie(&http.Cookie{Name: SessionCookie, Value: token, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: h.secure(c), MaxAge: int(h.Cfg.Sessions.Absolute.Seconds())})
}

func (h *Handler) clearSession(c echo.Context) {
	c.SetCookie(&http.Cookie{Name: SessionCookie, Value: "", Path: "/", HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: h.secure(c), MaxAge: -1})
}

// secure reports whether cookies must be Secure: served over TLS, directly or behind a proxy
// configured with an https public URL.
func (h *Handler) secure(c echo.Context) bool {
	return h.Cfg.SecureCookies || c.IsTLS()
}

// localPath returns next when it is a path on this site, else "/". Browsers drop tabs and
// newlines from URLs and read a backslash as a slash, so "/\t/evil.com" and "/\\evil.com" would
// leave the site: a target with a control character or a backslash is refused, and what is
// left must parse as a path with no scheme and no host.
func localPath(next string) string {
	if strings.ContainsFunc(next, func(r rune) bool { return r < 0x20 || r == 0x7f || r == '\\' }) {
		return "/"
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.Opaque != "" || !strings.HasPrefix(u.Path, "/") ||
		strings.HasPrefix(next, "//") {
		return "/"
	}
	return next
}
