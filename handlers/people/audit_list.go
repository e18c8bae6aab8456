package people

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/api"
)

// AuditList shows the audit log: all of it to admins, their projects' entries to leads,
// filtered as the audit page is (actor, action, project, from, to: days in the billing zone).
// GET /api/v1/audit.
func (h *Handler) AuditList(c echo.Context) error {
	f, err := h.auditFilter(c, h.Loc(), 500)
	if err != nil {
		return err
	}
	entries, err := h.store.AuditLog(c.Request().Context(), f)
	if err != nil {
		return err
	}
	out := make([]api.AuditEntry, len(entries))
	for i, e := range entries {
		out[i] = api.AuditEntry{At: e.At, Actor: e.Actor, Action: e.Action, Subject: e.Subject, Before: e.Before, After: e.After}
	}
	return c.JSON(http.StatusOK, out)
}
