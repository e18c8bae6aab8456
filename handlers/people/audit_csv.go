package people

import (
	"bytes"
	"encoding/csv"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
)

// AuditCSV downloads the audit log as the page filters it (up to 10,000 entries), with times
// in the viewer's zone and each entry's before and after JSON; leads get their projects'
// entries only. CSV with a BOM, so Excel reads it as UTF-8. GET /audit.csv?….
func (h *Handler) AuditCSV(c echo.Context) error {
	zone := h.viewerZone(c)
	f, err := h.auditFilter(c, zone, 10000)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	entries, err := h.store.AuditLog(ctx, f)
	if err != nil {
		return err
	}
	projects, err := h.store.Projects(ctx)
	if err != nil {
		return err
	}
	names := map[int64]string{}
	for _, p := range projects {
		names[p.ID] = p.Name
	}
	var buf bytes.Buffer
	buf.WriteString("\ufeff")
	w := csv.NewWriter(&buf)
	w.Write([]string{"id", "at", "actor", "action", "project", "subject", "before", "after"})
	for _, e := range entries {
		project := ""
		if e.ProjectID != nil {
			project = names[*e.ProjectID]
		}
		w.Write([]string{strconv.FormatInt(e.ID, 10), e.At.In(zone).Format("2006-01-02T15:04:05Z07:00"), csvCell(e.Actor), e.Action,
			project, csvCell(e.Subject), e.Before, e.After})
	}
	w.Flush()
	c.Response().Header().Set(echo.HeaderContentDisposition, `attachment; filename="kashi-audit.csv"`)
	return c.Blob(http.StatusOK, "text/csv; charset=utf-8", buf.Bytes())
}

// csvCell keeps a value that starts like a spreadsheet formula ("=cmd()", a failed login's
// typed name) as text in Excel, by a leading '.
func csvCell(s string) string {
	if s != "" && strings.IndexByte("=+-@\t\r", s[0]) >= 0 {
		return "'" + s
	}
	return s
}
