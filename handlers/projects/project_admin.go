package projects

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/billing"
	"kashi/handlers"
	"kashi/models"
	"kashi/views"
	projectsview "kashi/views/projects"
)

// projectAdmin adds the forms of a project's leads and the admins to the projects page: the
// admin's form that adds a project, and on each card the viewer leads its tags, members and
// (admins) quotas and archive button. An archived project's card offers no request form.
func (h *Handler) projectAdmin(c echo.Context, d *projectsview.ProjectsData, list []api.Project) error {
	p := handlers.Who(c)
	if p.Admin() && !p.ReadOnly {
		d.Create = &projectsview.ProjectCreateForm{}
	}
	ctx := c.Request().Context()
	var users, specs []string
	for i := range d.Projects {
		pv := &d.Projects[i]
		pj := projectOf(list, pv.ID)
		if pj.ArchivedAt != nil {
			pv.CanRequest = false // an archived project takes no requests
		}
		if !p.Leads(pv.ID) {
			continue
		}
		if users == nil {
			all, err := h.store.Users(ctx)
			if err != nil {
				return err
			}
			users = []string{}
			for _, u := range all {
				if !u.Disabled {
					users = append(users, u.Name)
				}
			}
			if _, specs, _, err = h.store.BoardOptions(ctx); err != nil {
				return err
			}
		}
		members, err := h.store.ProjectMembers(ctx, pv.ID)
		if err != nil {
			return err
		}
		a := &views.ProjectAdmin{Tags: strings.Join(pj.Tags, ", "), Users: users, Specs: specs,
			CanArchive: p.Admin(), Archived: pj.ArchivedAt != nil}
		for _, m := range members {
			a.Members = append(a.Members, views.MemberView{Name: m.UserName, Role: m.Role})
		}
		if p.Admin() {
			for _, q := range pj.Quotas {
				a.Quotas = append(a.Quotas, h.quotaFormOf(q))
			}
			today := h.Now().In(h.Loc())
			a.Quotas = append(a.Quotas, views.QuotaForm{New: true, StartsAt: today.Format(time.DateOnly),
				EndsAt: today.AddDate(1, 0, 0).Format(time.DateOnly)})
		}
		pv.Admin = a
	}
	return nil
}

// projectOf is the project id of list.
func projectOf(list []api.Project, id int64) api.Project {
	for _, pj := range list {
		if pj.ID == id {
			return pj
		}
	}
	return api.Project{}
}

// quotaFormOf is a quota as the admin's form shows it: dates in the billing zone, the rate in
// yuan.
func (h *Handler) quotaFormOf(q api.Quota) views.QuotaForm {
	f := views.QuotaForm{Spec: q.Spec, MaxGPUs: strconv.Itoa(q.MaxGPUs), GuaranteedGPUs: strconv.Itoa(q.GuaranteedGPUs),
		MaxServiceGPUs:  strconv.Itoa(q.MaxServiceGPUs),
		BudgetCardHours: strconv.FormatInt(q.BudgetCardHours, 10), StartsAt: q.StartsAt.In(h.Loc()).Format(time.DateOnly),
		EndsAt: q.EndsAt.In(h.Loc()).Format(time.DateOnly), OverflowAllowed: q.OverflowAllowed,
		RemindEndDays: models.JoinInts(q.RemindEndDays), RemindBudgetPcts: models.JoinInts(q.RemindBudgetPcts),
		ContractMaxGPUs: strconv.Itoa(q.ContractMaxGPUs), ContractGuaranteedGPUs: strconv.Itoa(q.ContractGuaranteedGPUs),
		ContractBudgetCardHours: strconv.FormatInt(q.ContractBudgetCardHours, 10)}
	if q.OverflowRateFen > 0 {
		f.OverflowRate = billing.FormatFen(q.OverflowRateFen)
	}
	return f
}

// ProjectFormCreate adds a project from the admin's form. POST /projects (name, tags).
func (h *Handler) ProjectFormCreate(c echo.Context) error {
	f := projectsview.ProjectCreateForm{Name: strings.TrimSpace(c.FormValue("name")), Tags: c.FormValue("tags")}
	_, err := h.store.CreateProject(c.Request().Context(), handlers.Who(c).User.Name, f.Name, splitTags(f.Tags), h.Now())
	if err == nil {
		return c.Redirect(http.StatusSeeOther, "/projects?created="+url.QueryEscape(f.Name))
	}
	ps, ok := handlers.FormProblems(handlers.Locale(c), err, projectsview.ProjectCreateFields)
	if !ok {
		return err
	}
	f.Problems = ps
	return h.projectsRefused(c, func(d *projectsview.ProjectsData) { d.Create = &f })
}

// ProjectFormArchive archives a project or takes it back into use (admins).
// POST /projects/:id/archive (archived=true|false).
func (h *Handler) ProjectFormArchive(c echo.Context) error {
	id, err := handlers.PathID(c)
	if err != nil {
		return err
	}
	archived, err := strconv.ParseBool(c.FormValue("archived"))
	if err != nil {
		return handlers.BadRequest("archived", "archived must be true or false")
	}
	if err := h.store.SetProjectArchived(c.Request().Context(), handlers.Who(c).User.Name, id, archived, h.Now()); err != nil {
		return handlers.StoreError(err)
	}
	return h.projectSaved(c, id)
}

// ProjectFormTags replaces a project's tags from its card (leads). POST /projects/:id/tags.
func (h *Handler) ProjectFormTags(c echo.Context) error {
	id, err := handlers.PathID(c)
	if err != nil {
		return err
	}
	return h.projectForm(c, id, "tags", h.setTags(c, id, splitTags(c.FormValue("tags"))))
}

// MemberFormSet adds a member, changes a member's role or removes them (role "") from a
// project's card (leads). POST /projects/:id/members (user, role).
func (h *Handler) MemberFormSet(c echo.Context) error {
	id, err := handlers.PathID(c)
	if err != nil {
		return err
	}
	return h.projectForm(c, id, "members", h.setMember(c, id, strings.TrimSpace(c.FormValue("user")), c.FormValue("role")))
}

// QuotaFormSet sets a quota's contract from a project's card (admins). Dates are days in the
// billing zone (the quota ends at the start of the end day); the overflow rate is yuan per
// card-hour, empty for the price list's. POST /projects/:id/quotas.
func (h *Handler) QuotaFormSet(c echo.Context) error {
	id, err := handlers.PathID(c)
	if err != nil {
		return err
	}
	form := "quota:new"
	if spec := strings.TrimSpace(c.FormValue("spec")); h.hasQuota(c, id, spec) {
		form = "quota:" + spec
	}
	q, err := h.quotaFromForm(c, id)
	if err == nil {
		_, err = h.setQuota(c, q)
	}
	return h.projectForm(c, id, form, err)
}

// hasQuota reports whether project id has a quota of spec.
func (h *Handler) hasQuota(c echo.Context, id int64, spec string) bool {
	qs, err := h.store.Quotas(c.Request().Context(), id)
	if err != nil {
		return false
	}
	for _, q := range qs {
		if q.Spec == spec {
			return true
		}
	}
	return false
}

// quotaFromForm reads the quota form; every value it cannot read is named, and then what the
// store refuses of the rest (models.CheckQuota), storing nothing.
func (h *Handler) quotaFromForm(c echo.Context, id int64) (models.Quota, error) {
	q := models.Quota{ProjectID: id, Spec: strings.TrimSpace(c.FormValue("spec")), OverflowAllowed: c.FormValue("overflow_allowed") != "",
		RemindEndDays: c.FormValue("remind_end_days"), RemindBudgetPcts: c.FormValue("remind_budget_pcts")}
	var ps models.Problems
	whole := func(field string, optional bool) int64 {
		v := strings.TrimSpace(c.FormValue(field))
		if v == "" && optional {
			return 0
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			ps.Add(models.Invalid(field, "give a whole number"))
		}
		return n
	}
	cards := func(field string, optional bool) int {
		return int(min(max(whole(field, optional), -1), models.MaxGPUCount+1))
	}
	day := func(field string) time.Time {
		t, err := time.ParseInLocation(time.DateOnly, c.FormValue(field), h.Loc())
		if err != nil {
			ps.Add(models.Invalid(field, "give a date"))
		}
		return t
	}
	q.MaxGPUs, q.GuaranteedGPUs, q.MaxServiceGPUs = cards("max_gpus", false), cards("guaranteed_gpus", true), cards("max_service_gpus", true)
	q.BudgetCardHours = whole("budget_card_hours", false)
	// The contract: empty for the quota's own values.
	q.ContractMaxGPUs, q.ContractGuaranteedGPUs = cards("contract_max_gpus", true), cards("contract_guaranteed_gpus", true)
	q.ContractBudgetCardHours = whole("contract_budget_card_hours", true)
	q.StartsAt, q.EndsAt = day("starts_at"), day("ends_at")
	if v := c.FormValue("overflow_rate"); strings.TrimSpace(v) != "" {
		var err error
		q.OverflowRateFen, err = handlers.ParseYuan("overflow_rate", v, false)
		ps.Add(err)
	}
	if ps.Err() != nil {
		ps.Add(models.CheckQuota(q))
	}
	return q, ps.Err()
}

// projectForm ends a card's form: back to the project's card, or the page again (422) with
// the refusal on the form it came from. A refusal that is not about a value (403, 404) is the
// error page.
func (h *Handler) projectForm(c echo.Context, id int64, form string, err error) error {
	if err == nil {
		return h.projectSaved(c, id)
	}
	l := handlers.Locale(c)
	ps, ok := handlers.FormProblems(l, err, views.QuotaFields)
	var he *echo.HTTPError
	switch {
	case ok:
	case errors.As(err, &he) && he.Code == http.StatusUnprocessableEntity:
		ps = views.Problems{{Text: handlers.Problem(l, err)}}
		if pe, ok := he.Message.(api.Error); ok {
			ps[0].Field = pe.Field
		}
	default:
		return err
	}
	return h.projectsRefused(c, func(d *projectsview.ProjectsData) {
		for i := range d.Projects {
			if a := d.Projects[i].Admin; d.Projects[i].ID == id && a != nil {
				a.Form, a.Problems = form, ps
			}
		}
	})
}

// projectSaved sends the browser back to the project's card with a notice.
func (h *Handler) projectSaved(c echo.Context, id int64) error {
	return c.Redirect(http.StatusSeeOther, "/projects?saved="+strconv.FormatInt(id, 10)+"#project-"+strconv.FormatInt(id, 10))
}

// projectsRefused renders the projects page (422) after mark sets a refused form on it.
func (h *Handler) projectsRefused(c echo.Context, mark func(d *projectsview.ProjectsData)) error {
	d, err := h.projectsData(c, views.RequestForm{})
	if err != nil {
		return err
	}
	mark(&d)
	return handlers.Render(c, http.StatusUnprocessableEntity, projectsview.Projects(handlers.Locale(c), d))
}

// splitTags reads comma-separated tags; Chinese commas separate too.
func splitTags(s string) []string {
	var out []string
	for _, t := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == '，' || r == '、' }) {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// projectNotice confirms a project added (?created=name) or changed (?saved=id).
func (h *Handler) projectNotice(c echo.Context, d *projectsview.ProjectsData) {
	if name := c.QueryParam("created"); name != "" {
		d.Notice = projectsview.ProjectCreatedNotice(handlers.Locale(c), name)
	}
	if id, err := strconv.ParseInt(c.QueryParam("saved"), 10, 64); err == nil {
		for _, p := range d.Projects {
			if p.ID == id {
				d.Notice = projectsview.ProjectSavedNotice(handlers.Locale(c), p.Name)
			}
		}
	}
}
