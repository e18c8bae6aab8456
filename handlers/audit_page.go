package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/views"
)

// AuditPage shows the audit log: everything to admins, their projects' entries to leads.
// GET /audit.
func (h *People) AuditPage(c echo.Context) error {
	entries, err := h.auditEntries(c)
	if err != nil {
		return err
	}
	d := views.AuditData{Entries: make([]views.AuditView, len(entries))}
	for i, e := range entries {
		d.Entries[i] = views.AuditView{At: e.At.In(h.loc()), Actor: e.Actor, Action: e.Action, Subject: e.Subject, Before: e.Before, After: e.After}
	}
	return Render(c, http.StatusOK, views.Audit(Locale(c), d))
}
