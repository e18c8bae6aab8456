package projects

import (
	"context"
	"net/http"
	"slices"
	"strconv"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
	"kashi/models"
	"kashi/phrase"
	"kashi/views"
	projectsview "kashi/views/projects"
)

// ProjectsPage shows the caller's projects, quotas with this month's use, the request form and
// the caller's requests. A task waiting on its project's limit links here with the request
// filled in (?project=&spec=&kind=&value=&task=). GET /projects.
func (h *Handler) ProjectsPage(c echo.Context) error {
	form, err := requestPrefill(c)
	if err != nil {
		return err
	}
	d, err := h.projectsData(c, form)
	if err != nil {
		return err
	}
	if id, err := strconv.ParseInt(c.QueryParam("sent"), 10, 64); err == nil {
		d.Notice = projectsview.RequestSentNotice(handlers.Locale(c), id)
	}
	if c.QueryParam("reclaim") != "" {
		d.Notice = projectsview.ReclaimSavedNotice(handlers.Locale(c))
	}
	h.projectNotice(c, &d)
	return handlers.Render(c, http.StatusOK, projectsview.Projects(handlers.Locale(c), d))
}

// requestPrefill is the request form as a link fills it in; the submit checks every value.
func requestPrefill(c echo.Context) (views.RequestForm, error) {
	q := c.QueryParams()
	f := views.RequestForm{Project: q.Get("project"), Spec: q.Get("spec"), Kind: q.Get("kind"), Value: q.Get("value")}
	if v := q.Get("task"); v != "" {
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil || id <= 0 {
			return f, handlers.BadRequest("task", "task must be a task id")
		}
		f.Reason = views.QuotaReasonForTask(handlers.Locale(c), id)
	}
	return f, nil
}

// projectsData builds the projects page.
func (h *Handler) projectsData(c echo.Context, form views.RequestForm) (projectsview.ProjectsData, error) {
	p := handlers.Who(c)
	list, err := h.projects(c)
	if err != nil {
		return projectsview.ProjectsData{}, err
	}
	d := projectsview.ProjectsData{Now: h.Now().In(h.Loc()), Form: form}
	access, err := h.noQuotaAccess(c.Request().Context())
	if err != nil {
		return d, err
	}
	ceil, err := h.store.Ceilings(c.Request().Context(), h.Now())
	if err != nil {
		return d, err
	}
	for _, pj := range list {
		pv := views.ProjectView{ID: pj.ID, Name: pj.Name, Role: pj.Role, CanRequest: p.CanRun(pj.ID)}
		if p.Leads(pj.ID) {
			pv.Reclaim = reclaimFormOf(models.ReclaimOverride(pj.Reclaim))
		}
		for _, q := range pj.Quotas {
			qv := views.QuotaView{Spec: q.Spec, MaxGPUs: q.MaxGPUs, LimitGPUs: q.LimitGPUs, InUseGPUs: q.InUseGPUs, GuaranteedGPUs: q.GuaranteedGPUs, BudgetCardHours: q.BudgetCardHours,
				UsedCardHours: int64(q.UsedCardHours), StartsAt: q.StartsAt, EndsAt: q.EndsAt, OverflowAllowed: q.OverflowAllowed,
				ContractMaxGPUs: q.ContractMaxGPUs, ContractGuaranteedGPUs: q.ContractGuaranteedGPUs, ContractBudgetCardHours: q.ContractBudgetCardHours}
			room := ceil.GuaranteeRoom(models.Quota{ProjectID: pj.ID, Spec: q.Spec})
			qv.ReachGPUs, qv.GuaranteedElsewhere = room.Ceiling, room.Taken
			if q.OverrideEnds != nil && q.OverrideEnds.After(h.Now()) {
				qv.OverrideMaxGPUs, qv.OverrideEnds = q.OverrideMaxGPUs, q.OverrideEnds
			}
			pv.Quotas = append(pv.Quotas, qv)
		}
		pv.NoQuota = access(pj.ID, pj.Name)
		d.Projects = append(d.Projects, pv)
	}
	if d.QuotaChanges, err = h.quotaChangeRows(c, list); err != nil {
		return d, err
	}
	if d.ReclaimChanges, err = h.reclaimChangeRows(c, list); err != nil {
		return d, err
	}
	if d.Regions, err = h.store.PoolRegions(c.Request().Context()); err != nil {
		return d, err
	}
	if err := h.projectAdmin(c, &d, list); err != nil {
		return d, err
	}
	rows, err := h.store.QuotaRequests(c.Request().Context(), handlers.VisibleProjects(p), "")
	if err != nil {
		return d, err
	}
	for _, r := range rows {
		if r.RequestedBy == p.User.ID || p.CanSee(r.ProjectID) {
			d.Requests = append(d.Requests, requestView(handlers.Locale(c), r))
		}
	}
	return d, nil
}

// noQuotaAccess reads what the projects page needs to say, for each project, what it may use
// of each spec of the fleet it has no quota on (the pools' rule, models.SpecAccesses) and
// how many cards of it it holds; the returned function says it for one project.
func (h *Handler) noQuotaAccess(ctx context.Context) (func(id int64, name string) []views.SpecAccess, error) {
	quotas, err := h.store.Quotas(ctx, 0)
	if err != nil {
		return nil, err
	}
	pools, err := h.store.ConfiguredPools(ctx)
	if err != nil {
		return nil, err
	}
	_, specs, _, err := h.store.BoardOptions(ctx)
	if err != nil {
		return nil, err
	}
	for _, p := range pools {
		specs = append(specs, p.Spec)
	}
	slices.Sort(specs)
	specs = slices.Compact(specs)
	use, err := h.quotaUse(ctx)
	if err != nil {
		return nil, err
	}
	rules, now := models.NoQuotaRules(pools), h.Now()
	return func(id int64, name string) []views.SpecAccess {
		var open []models.SpecAccess
		for _, a := range models.SpecAccesses(quotas, id, specs, rules, now) {
			if !a.Quota {
				open = append(open, a)
			}
		}
		return handlers.SpecAccessViews(open, use[name])
	}, nil
}

// requestView shows a request on a page.
func requestView(l phrase.Locale, r models.QuotaRequestRow) projectsview.RequestView {
	return projectsview.RequestView{ID: r.ID, Project: r.Project, Spec: r.Spec, Kind: r.Kind, Change: changeText(l, r),
		Reason: r.Reason, Requester: r.Requester, State: r.State, Comment: r.Comment, CreatedAt: r.CreatedAt}
}

// changeText says in words what a request asks.
func changeText(l phrase.Locale, r models.QuotaRequestRow) string {
	c := r.Parsed()
	switch r.Kind {
	case models.RequestLimit:
		return l.T("requests.kind.limit") + ": " + l.Int(c.MaxGPUs)
	case models.RequestBudget:
		return l.T("requests.kind.budget") + ": +" + l.Int(int(c.AddCardHours))
	case models.RequestExtend:
		return l.T("requests.kind.extend") + ": " + c.EndsAt.Format("2006-01-02")
	case models.RequestOverride:
		return l.T("requests.kind.override") + ": " + l.Int(c.OverrideMaxGPUs) + " · " +
			c.OverrideBegins.Format("2006-01-02 15:04") + " – " + c.OverrideEnds.Format("2006-01-02 15:04")
	case models.RequestGuarantee, models.RequestOverflow:
		return requestKindText(l, r.Kind) + ": " + askedText(l, r.Kind, c)
	case models.RequestReservation:
		return requestKindText(l, r.Kind) + ": " + reservationText(l, c)
	}
	return r.Kind
}
