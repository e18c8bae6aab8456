package handlers

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/models"
)

// auditJSON is one audit log entry.
type auditJSON struct {
	At      time.Time `json:"at"`
	Actor   string    `json:"actor"`
	Action  string    `json:"action"`
	Subject string    `json:"subject"`
	Before  string    `json:"before"`
	After   string    `json:"after"`
}

// AuditList shows the audit log: all of it to admins, their projects' entries to leads.
// GET /api/v1/audit.
func (h *People) AuditList(c echo.Context) error {
	entries, err := h.auditEntries(c)
	if err != nil {
		return err
	}
	out := make([]auditJSON, len(entries))
	for i, e := range entries {
		out[i] = auditJSON{At: e.At, Actor: e.Actor, Action: e.Action, Subject: e.Subject, Before: e.Before, After: e.After}
	}
	return c.JSON(http.StatusOK, out)
}

// auditEntries reads the entries the caller may see.
func (h *People) auditEntries(c echo.Context) ([]models.AuditEntry, error) {
	f := models.AuditFilter{Limit: 500, ProjectIDs: ledProjects(Who(c))}
	return h.store.AuditLog(c.Request().Context(), f)
}
