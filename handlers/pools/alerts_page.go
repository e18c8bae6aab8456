package pools

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
	"kashi/models"
	poolsview "kashi/views/pools"
)

// recentAlerts is how many alerts the page and the API look at.
const recentAlerts = 200

// AlertsPage shows the open alerts grouped by task or node, then the recently resolved ones
// (of the latest recentAlerts) grouped by kind and task or node.
// ?acked=N confirms an acknowledgement. GET /alerts.
func (h *Handler) AlertsPage(c echo.Context) error {
	ctx := c.Request().Context()
	alerts, err := h.store.Alerts(ctx, models.AlertFilter{Limit: recentAlerts})
	if err != nil {
		return err
	}
	names, err := h.store.NodeNames(ctx)
	if err != nil {
		return err
	}
	l := handlers.Locale(c)
	p := handlers.Who(c)
	d := poolsview.AlertsData{Now: h.Now().In(h.Loc())}
	var open, resolved []poolsview.AlertView
	for _, a := range alerts {
		v := AlertView(a)
		v.Node = names[a.NodeID]
		if a.ResolvedAt == nil {
			open = append(open, v)
		} else {
			resolved = append(resolved, v)
		}
	}
	d.Open = poolsview.GroupAlerts(open, names)
	d.Resolved = poolsview.GroupResolved(resolved, names)
	for i := range d.Open {
		if d.Open[i].CanAck, err = h.canAck(ctx, p, d.Open[i].TaskID); err != nil {
			return err
		}
	}
	if n, err := strconv.Atoi(c.QueryParam("acked")); err == nil && n >= 0 {
		d.Notice = l.T("alert.acked_notice", n)
	}
	return handlers.Render(c, http.StatusOK, poolsview.Alerts(l, d))
}

// AlertView is an alert as pages and chat messages show it.
func AlertView(a models.Alert) poolsview.AlertView {
	return poolsview.AlertView{ID: a.ID, Kind: a.Kind, Subject: a.Subject, Code: a.Code, Params: a.AlertParams(),
		Message: a.Message, Severity: a.Severity, TaskID: a.TaskID, NodeID: a.NodeID, Pool: a.Pool, At: a.At,
		LastAt: a.LastAt, Count: a.Count, ResolvedAt: a.ResolvedAt, Sent: a.SentAt != nil, AckedBy: a.AckedBy,
		AckedAt: a.AckedAt}
}

// AlertAck acknowledges the open alerts named by the form's id fields (one group of the
// page): an admin any, a lead those about tasks of projects they lead. It records who and
// when, and goes back to the page. POST /alerts/ack.
func (h *Handler) AlertAck(c echo.Context) error {
	ctx := c.Request().Context()
	form, err := c.FormParams()
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, "id: "+err.Error())
	}
	raw := form["id"]
	if len(raw) == 0 || len(raw) > recentAlerts {
		return echo.NewHTTPError(http.StatusBadRequest, "id: between 1 and "+strconv.Itoa(recentAlerts)+" alert ids")
	}
	ids := make([]int64, len(raw))
	for i, s := range raw {
		if ids[i], err = strconv.ParseInt(s, 10, 64); err != nil || ids[i] <= 0 {
			return echo.NewHTTPError(http.StatusBadRequest, "id: not an alert id: "+strconv.Quote(s))
		}
	}
	p := handlers.Who(c)
	if err := h.mayAck(ctx, p, ids); err != nil {
		return err
	}
	n, err := h.store.AckAlerts(ctx, ids, p.User.Name, h.Now())
	if err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/alerts?acked="+strconv.Itoa(n))
}

// mayAck refuses with 403 when p may not acknowledge one of the open alerts ids, and with 404
// when one is not an open alert.
func (h *Handler) mayAck(ctx context.Context, p *handlers.Principal, ids []int64) error {
	open, err := h.store.Alerts(ctx, models.AlertFilter{OpenOnly: true})
	if err != nil {
		return err
	}
	byID := make(map[int64]models.Alert, len(open))
	for _, a := range open {
		byID[a.ID] = a
	}
	for _, id := range ids {
		a, ok := byID[id]
		if !ok {
			return echo.NewHTTPError(http.StatusNotFound, "id: no open alert "+strconv.FormatInt(id, 10))
		}
		ok, err := h.canAck(ctx, p, a.TaskID)
		if err != nil {
			return err
		}
		if !ok {
			return echo.NewHTTPError(http.StatusForbidden, "only an admin, or a lead of the task's project, acknowledges this alert")
		}
	}
	return nil
}

// canAck reports whether p may acknowledge an alert about task taskID (0: about the fleet):
// an admin any, a lead those about tasks of projects they lead.
func (h *Handler) canAck(ctx context.Context, p *handlers.Principal, taskID int64) (bool, error) {
	if p.Admin() {
		return true, nil
	}
	if taskID == 0 || !p.Allows(handlers.Lead) {
		return false, nil
	}
	t, err := h.store.TaskByID(ctx, taskID)
	if errors.Is(err, models.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return p.Leads(t.ProjectID), nil
}

// AlertList lists recent alerts, newest first, each with its sentence rendered in the
// caller's language; ?open=true keeps the open ones. GET /api/v1/alerts.
func (h *Handler) AlertList(c echo.Context) error {
	f := models.AlertFilter{Limit: recentAlerts, OpenOnly: c.QueryParam("open") == "true"}
	alerts, err := h.store.Alerts(c.Request().Context(), f)
	if err != nil {
		return err
	}
	l := handlers.Locale(c)
	out := make([]api.Alert, len(alerts))
	for i, a := range alerts {
		params := a.AlertParams()
		if params == nil {
			params = []string{}
		}
		out[i] = api.Alert{ID: a.ID, Kind: a.Kind, Subject: a.Subject, Code: a.Code, Params: params,
			Message: l.AlertSentence(a.Code, params, a.Message), Severity: a.Severity, TaskID: a.TaskID,
			NodeID: a.NodeID, Pool: a.Pool, FirstAt: a.At, LastAt: a.LastAt, Count: a.Count, ResolvedAt: a.ResolvedAt,
			SentAt: a.SentAt, AckedBy: a.AckedBy, AckedAt: a.AckedAt}
	}
	return c.JSON(http.StatusOK, out)
}
