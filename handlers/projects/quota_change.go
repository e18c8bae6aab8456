package projects

import (
	"errors"
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

// Quota changes listed per project on the projects page, and how many of them load what
// they saved (each replays a period twice).
const (
	listedQuotaChanges   = 5
	measuredQuotaChanges = 3
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
	l, ctx := handlers.Locale(c), c.Request().Context()
	project, err1 := strconv.ParseInt(c.Param("id"), 10, 64)
	id, err2 := strconv.ParseInt(c.Param("change"), 10, 64)
	if err1 != nil || err2 != nil || project < 1 || id < 1 {
		return handlers.PageError(http.StatusNotFound, l.T("change.err_quota"))
	}
	if !handlers.Who(c).CanSee(project) {
		return handlers.PageError(http.StatusForbidden, l.T("change.err_quota_project"))
	}
	ch, done, err := h.changes.Peek(ctx, h.store, pilot.QuotaRef(project, id), h.Now())
	if errors.Is(err, pilot.ErrNoChange) {
		return handlers.PageError(http.StatusNotFound, l.T("change.err_quota"))
	}
	if err != nil {
		return err
	}
	loc, q := h.Loc(), ch.Quota
	d := projectsview.QuotaChangeData{ProjectID: project, ID: id, Name: ch.Name(l), By: ch.By, Note: ch.Note, At: ch.At.In(loc),
		OldMax: q.Old.MaxGPUs, NewMax: q.New.MaxGPUs, OldGuaranteed: q.Old.GuaranteedGPUs, NewGuaranteed: q.New.GuaranteedGPUs,
		OldBudget: q.Old.BudgetCardHours, NewBudget: q.New.BudgetCardHours, Computing: !done, Ready: ch.Ready,
		From: ch.From.In(loc), To: ch.To.In(loc), Before: handlers.PeriodFigures(ch.Before), After: handlers.PeriodFigures(ch.After),
		Counter: handlers.CounterFigures(ch.Counter)}
	if done {
		d.Sentence = ch.Sentence(l, loc)
	}
	switch {
	case c.Request().Header.Get("HX-Request") != "true":
		return handlers.Render(c, http.StatusOK, projectsview.QuotaChange(l, d))
	case c.Request().Header.Get("HX-Target") == views.ChangeMeasureID:
		return handlers.Render(c, http.StatusOK, projectsview.QuotaChangeMeasure(l, d))
	}
	return handlers.Render(c, http.StatusOK, projectsview.QuotaChangeSentence(l, d))
}

// quotaChangeRows are the latest changes of the quotas of the projects in list that the
// caller sees, by project id, the latest of each loading what it saved.
func (h *Handler) quotaChangeRows(c echo.Context, list []api.Project) (map[int64][]projectsview.QuotaChangeRow, error) {
	who, loc := handlers.Who(c), h.Loc()
	out := map[int64][]projectsview.QuotaChangeRow{}
	for _, pj := range list {
		if !who.CanSee(pj.ID) {
			continue
		}
		es, err := h.store.QuotaEdits(c.Request().Context(), pj.ID, time.Time{}, time.Time{})
		if err != nil {
			return nil, err
		}
		for _, e := range es { // newest first
			if e.Before == nil || len(out[pj.ID]) == listedQuotaChanges {
				continue
			}
			out[pj.ID] = append(out[pj.ID], projectsview.QuotaChangeRow{ProjectID: pj.ID, ID: e.ID, Spec: e.After.Spec, By: e.Actor,
				At: e.At.In(loc), OldMax: e.Before.MaxGPUs, NewMax: e.After.MaxGPUs, Measured: len(out[pj.ID]) < measuredQuotaChanges})
		}
	}
	return out, nil
}
