package people

import (
	"net/http"
	"net/url"
	"regexp"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
	"kashi/models"
	peopleview "kashi/views/people"
)

// AuditPage shows the audit log, filtered by who, what, project and days as the URL says,
// each entry's subject and change field by field in the page's language (auditWords), with
// times in the viewer's zone: everything to admins, their projects' entries to leads.
// GET /audit?actor=&action=&project=&from=&to=.
func (h *Handler) AuditPage(c echo.Context) error {
	zone := h.viewerZone(c)
	d := peopleview.AuditData{Filter: auditFilterOf(c), Zone: zone.String(), CSV: "/audit.csv"}
	if q := c.Request().URL.RawQuery; q != "" {
		d.CSV += "?" + q
	}
	ctx := c.Request().Context()
	p := handlers.Who(c)
	var err error
	if d.Actions, err = h.store.AuditActions(ctx, ledProjects(p)); err != nil {
		return err
	}
	projects, err := h.store.Projects(ctx)
	if err != nil {
		return err
	}
	for _, pr := range projects {
		if p.Leads(pr.ID) || p.Admin() {
			d.Projects = append(d.Projects, pr.Name)
		}
	}
	f, err := h.auditFilter(c, zone, 500)
	if err != nil {
		d.Error = handlers.Problem(handlers.Locale(c), err)
		return handlers.Render(c, http.StatusBadRequest, peopleview.Audit(handlers.Locale(c), d))
	}
	entries, err := h.store.AuditLog(ctx, f)
	if err != nil {
		return err
	}
	names := map[int64]string{}
	for _, pr := range projects {
		names[pr.ID] = pr.Name
	}
	users, err := h.store.Users(ctx)
	if err != nil {
		return err
	}
	l := handlers.Locale(c)
	w := auditWords{l: l, zone: zone, users: make(map[int64]string, len(users))}
	for _, u := range users {
		w.users[u.ID] = u.Name
	}
	for _, e := range entries {
		v := peopleview.AuditView{At: e.At.In(zone), Actor: e.Actor, Action: e.Action, Subject: w.subject(e.Subject),
			Changes: w.changes(e.Before, e.After)}
		if e.ProjectID != nil {
			v.Project = names[*e.ProjectID]
		}
		d.Entries = append(d.Entries, v)
	}
	return handlers.Render(c, http.StatusOK, peopleview.Audit(l, d))
}

// auditFilterOf is the filter as the URL holds it.
func auditFilterOf(c echo.Context) peopleview.AuditFilter {
	q := c.QueryParams()
	return peopleview.AuditFilter{Actor: q.Get("actor"), Action: q.Get("action"), Project: q.Get("project"), From: q.Get("from"), To: q.Get("to")}
}

// auditFilter reads the URL's filter for the store: days are in zone, to inclusive; a leader
// sees only the entries of projects they lead. A bad day or an unknown project is a 400
// naming the parameter.
func (h *Handler) auditFilter(c echo.Context, zone *time.Location, limit int) (models.AuditFilter, error) {
	v := auditFilterOf(c)
	f := models.AuditFilter{ProjectIDs: ledProjects(handlers.Who(c)), Actor: v.Actor, Action: v.Action, Limit: limit}
	for _, d := range []struct {
		name, text string
		into       *time.Time
		days       int
	}{{"from", v.From, &f.From, 0}, {"to", v.To, &f.To, 1}} {
		if d.text == "" {
			continue
		}
		t, err := time.ParseInLocation(time.DateOnly, d.text, zone)
		if err != nil {
			return f, handlers.BadRequest(d.name, d.name+" must be a day, 2006-01-02")
		}
		*d.into = t.AddDate(0, 0, d.days)
	}
	if v.Project != "" {
		p, err := h.store.ProjectByName(c.Request().Context(), v.Project)
		if err != nil {
			return f, handlers.BadRequest("project", "unknown project")
		}
		f.ProjectID = &p.ID
	}
	return f, nil
}

// ZoneCookie holds the browser's time zone (an IANA name, set by kashi.js), in which the
// audit log shows times.
const ZoneCookie = "kashi_tz"

var zoneName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_+/-]{0,63}$`)

// viewerZone is the viewer's time zone: the browser's, when its cookie names a zone this
// server knows, else the billing zone.
func (h *Handler) viewerZone(c echo.Context) *time.Location {
	if ck, err := c.Cookie(ZoneCookie); err == nil {
		name, _ := url.QueryUnescape(ck.Value)
		if zoneName.MatchString(name) {
			if loc, err := time.LoadLocation(name); err == nil {
				return loc
			}
		}
	}
	return h.Loc()
}
