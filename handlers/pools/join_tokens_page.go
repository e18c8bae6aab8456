package pools

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
	"kashi/models"
	"kashi/phrase"
	poolsview "kashi/views/pools"
)

// JoinTokensPage lists the single-use join tokens not yet used, the shared token's state, and
// the form that issues one; ?node= chooses a node in the form (the node page's link), and
// ?revoked= confirms a revoke. GET /join-tokens.
func (h *Handler) JoinTokensPage(c echo.Context) error {
	d := poolsview.JoinTokensData{}
	if v := c.QueryParam("node"); v != "" {
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil || id <= 0 {
			return handlers.PageError(http.StatusBadRequest, handlers.Locale(c).T("join.err.node_param"))
		}
		d.NodeID = id
	}
	switch c.QueryParam("revoked") {
	case "":
	case "shared":
		d.Notice = handlers.Locale(c).T("join.revoked_shared")
	default:
		d.Notice = handlers.Locale(c).T("join.revoked")
	}
	return h.renderJoinTokens(c, http.StatusOK, d)
}

// renderJoinTokens fills the page's lists into d and renders it with status.
func (h *Handler) renderJoinTokens(c echo.Context, status int, d poolsview.JoinTokensData) error {
	ctx := c.Request().Context()
	d.Now = h.Now().In(h.Loc())
	toks, err := h.store.ActiveJoinTokens(ctx)
	if err != nil {
		return err
	}
	for _, t := range toks {
		d.Tokens = append(d.Tokens, poolsview.JoinTokenView{ID: t.ID, MachineID: t.MachineID, NodeID: t.NodeID, Node: t.Node,
			CreatedBy: t.CreatedBy, CreatedAt: t.CreatedAt})
	}
	nodes, err := h.store.JoinTokenNodes(ctx)
	if err != nil {
		return err
	}
	for _, n := range nodes {
		d.Nodes = append(d.Nodes, poolsview.JoinTokenNode{ID: n.ID, Hostname: n.Hostname, MachineID: n.MachineID})
	}
	d.Shared = "none"
	if h.Cfg.JoinToken != "" {
		revoked, err := h.store.SharedJoinTokenRevoked(ctx)
		if err != nil {
			return err
		}
		d.Shared = "active"
		if revoked {
			d.Shared = "revoked"
		}
	}
	return handlers.Render(c, status, poolsview.JoinTokens(handlers.Locale(c), d))
}

// JoinTokenFormCreate issues a single-use join token bound to the form's machine id, node,
// or both, and shows it once; a problem is 422 with the form as typed and the field named by
// its label. POST /join-tokens.
func (h *Handler) JoinTokenFormCreate(c echo.Context) error {
	l := handlers.Locale(c)
	d := poolsview.JoinTokensData{MachineID: strings.TrimSpace(c.FormValue("machine_id"))}
	if v := c.FormValue("node_id"); v != "" {
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil || id <= 0 {
			d.Error, d.ErrorField = joinFieldProblem(l, "node_id", l.T("join.err.node")), "node_id"
			return h.renderJoinTokens(c, http.StatusBadRequest, d)
		}
		d.NodeID = id
	}
	tok, jt, err := h.store.CreateJoinToken(c.Request().Context(), handlers.Who(c).User.Name, d.MachineID, d.NodeID, h.Now())
	if fe, ok := errors.AsType[*models.FieldError](err); ok {
		d.Error, d.ErrorField = joinFieldProblem(l, fe.Field, l.Problem(fe.Format, fe.Args, fe.Msg)), fe.Field
		return h.renderJoinTokens(c, http.StatusUnprocessableEntity, d)
	}
	if err != nil {
		return err
	}
	d.NewToken = tok
	d.NewFor = poolsview.JoinTokenView{ID: jt.ID, MachineID: jt.MachineID, NodeID: jt.NodeID}
	d.MachineID, d.NodeID = "", 0
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	if err := h.fillNewNode(c, &d); err != nil {
		return err
	}
	return h.renderJoinTokens(c, http.StatusCreated, d)
}

// fillNewNode names the node the new token is bound to.
func (h *Handler) fillNewNode(c echo.Context, d *poolsview.JoinTokensData) error {
	if d.NewFor.NodeID == 0 {
		return nil
	}
	names, err := h.store.NodeNames(c.Request().Context())
	if err != nil {
		return err
	}
	d.NewFor.Node = names[d.NewFor.NodeID]
	return nil
}

// joinFieldProblem is a problem of the form's field in the page's language: its label, then
// what is wrong.
func joinFieldProblem(l phrase.Locale, field, problem string) string {
	label := l.T("join.machine_id")
	if field == "node_id" {
		label = l.T("join.node")
	}
	return label + l.T("valid.sep") + problem
}

// JoinTokenFormRevoke revokes a single-use join token not yet used, and goes back to the
// page. POST /join-tokens/:id/revoke.
func (h *Handler) JoinTokenFormRevoke(c echo.Context) error {
	id, err := handlers.PathID(c)
	if err != nil {
		return err
	}
	if err := h.store.RevokeJoinToken(c.Request().Context(), handlers.Who(c).User.Name, id, h.Now()); err != nil {
		l := handlers.Locale(c)
		switch {
		case errors.Is(err, models.ErrNotFound):
			return handlers.PageError(http.StatusNotFound, l.T("join.err.unknown", id))
		case errors.Is(err, models.ErrConflict):
			return handlers.PageError(http.StatusConflict, l.T("join.err.spent", id))
		}
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/join-tokens?revoked="+strconv.FormatInt(id, 10))
}

// JoinTokenFormRevokeShared stops the shared join token from registering machines, and goes
// back to the page. POST /join-tokens/shared/revoke.
func (h *Handler) JoinTokenFormRevokeShared(c echo.Context) error {
	if err := h.store.RevokeSharedJoinToken(c.Request().Context(), handlers.Who(c).User.Name, h.Now()); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/join-tokens?revoked=shared")
}
