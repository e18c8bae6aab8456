package projects

import (
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
	"kashi/pilot"
	"kashi/views"
	projectsview "kashi/views/projects"
)

// Changes listed per project and kind on the projects page, and how many of them load what
// they saved (each replays or re-evaluates a period twice).
const (
	listedChanges   = 5
	measuredChanges = 3
)

// QuotaChange shows what a change of a project's quota changed: the project's figures on
// the quota's pools in the period after against the period before, and the period after
// replayed under the old quota and the new. The measure runs in the background once per
// period in the server's one cache (pilot.ChangeCache); until it is done the page says so
// and polls. With HX-Request only the projects page's sentence comes back, or, for the
// page's poll (HX-Target change-measure), the page's body. Those who see the project
// (its members and leads, admins) open it, others get 403; a project's first quota, an
// unknown change or one of another project is 404. GET /projects/:id/quota-changes/:change.
func (h *Handler) QuotaChange(c echo.Context) error {
	l := handlers.Locale(c)
	project, id, err := changeOf(c, l.T("change.err_quota"))
	if err != nil {
		return err
	}
	ch, done, err := handlers.PeekChange(c, h.changes, h.store, pilot.QuotaRef(project, id), h.Now(), l.T("change.err_quota"))
	if err != nil {
		return err
	}
	loc, q := h.Loc(), ch.Quota
	d := projectsview.QuotaChangeData{ProjectID: project, ID: id, Name: ch.Name(l), By: ch.By, Note: ch.Note, At: ch.At.In(loc),
		OldMax: q.Old.MaxGPUs, NewMax: q.New.MaxGPUs, OldGuaranteed: q.Old.GuaranteedGPUs, NewGuaranteed: q.New.GuaranteedGPUs,
		OldBudget: q.Old.BudgetCardHours, NewBudget: q.New.BudgetCardHours, Computing: !done, Ready: ch.Ready,
		From: ch.From.In(loc), To: ch.To.In(loc), Before: handlers.PeriodFigures(ch.Before), After: handlers.PeriodFigures(ch.After),
		Counter: handlers.CounterFigures(ch)}
	if done {
		d.Sentence = ch.Sentence(l, loc)
	}
	return handlers.RenderChange(c, projectsview.QuotaChange(l, d), projectsview.QuotaChangeMeasure(l, d), projectsview.QuotaChangeSentence(l, d))
}

// changeOf reads the project and the change of a project change's path
// (/projects/:id/…/:change): 404 with notFound for ids that are not, 403 for a project the
// caller does not see.
func changeOf(c echo.Context, notFound string) (project, id int64, err error) {
	project, err1 := strconv.ParseInt(c.Param("id"), 10, 64)
	id, err2 := strconv.ParseInt(c.Param("change"), 10, 64)
	if err1 != nil || err2 != nil || project < 1 || id < 1 {
		return 0, 0, handlers.PageError(http.StatusNotFound, notFound)
	}
	if !handlers.Who(c).CanSee(project) {
		return 0, 0, handlers.PageError(http.StatusForbidden, handlers.Locale(c).T("change.err_project"))
	}
	return project, id, nil
}

// quotaChangeRows are the latest changes of the quotas of the projects in list that the
// caller sees, by project id, the latest of each loading what it saved.
func (h *Handler) quotaChangeRows(c echo.Context, list []api.Project) (map[int64][]projectsview.ChangeRow, error) {
	who, loc, l := handlers.Who(c), h.Loc(), handlers.Locale(c)
	out := map[int64][]projectsview.ChangeRow{}
	for _, pj := range list {
		if !who.CanSee(pj.ID) {
			continue
		}
		es, err := h.store.QuotaEdits(c.Request().Context(), pj.ID, time.Time{}, time.Time{})
		if err != nil {
			return nil, err
		}
		for _, e := range es { // newest first
			if e.Before == nil || len(out[pj.ID]) == listedChanges {
				continue
			}
			out[pj.ID] = append(out[pj.ID], projectsview.ChangeRow{URL: views.QuotaChangeURL(pj.ID, e.ID),
				Label: l.T("change.quota_row", e.After.Spec, e.Before.MaxGPUs, e.After.MaxGPUs), By: e.Actor,
				At: e.At.In(loc), Measured: len(out[pj.ID]) < measuredChanges})
		}
	}
	return out, nil
}
