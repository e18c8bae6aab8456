package projects

import (
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
	"kashi/models"
	"kashi/phrase"
	"kashi/pilot"
	"kashi/views"
	projectsview "kashi/views/projects"
)

// ReclaimChange shows what a change of a project's idle-reclaim override changed: the
// project's figures on every pool in the period after against the period before, and its
// tasks of the period after stopped where idle reclaim would have under the old override
// and the new (pilot's reclaim_change.go says why that is not a replay). The measure runs in
// the background once per period in the server's one cache; until it is done the page says
// so and polls. With HX-Request only the projects page's sentence comes back, or, for the
// page's poll (HX-Target change-measure), the page's body. Those who see the project (its
// members and leads, admins) open it, others get 403; an unknown change or one of another
// project is 404. GET /projects/:id/reclaim-changes/:change.
func (h *Handler) ReclaimChange(c echo.Context) error {
	l := handlers.Locale(c)
	project, id, err := changeOf(c, l.T("change.err_reclaim"))
	if err != nil {
		return err
	}
	ch, done, err := handlers.PeekChange(c, h.changes, h.store, pilot.ReclaimRef(project, id), h.Now(), l.T("change.err_reclaim"))
	if err != nil {
		return err
	}
	loc := h.Loc()
	d := projectsview.ReclaimChangeData{ProjectID: project, ID: id, Name: ch.Name(l), By: ch.By, At: ch.At.In(loc),
		Fields: reclaimFields(l, ch.Reclaim.Old, ch.Reclaim.New), Computing: !done, Ready: ch.Ready,
		From: ch.From.In(loc), To: ch.To.In(loc), Before: handlers.PeriodFigures(ch.Before), After: handlers.PeriodFigures(ch.After),
		Counter: handlers.CounterFigures(ch)}
	if done {
		d.Sentence = ch.Sentence(l, loc)
	}
	return handlers.RenderChange(c, projectsview.ReclaimChange(l, d), projectsview.ReclaimChangeMeasure(l, d), projectsview.ReclaimChangeSentence(l, d))
}

// reclaimFields are the fields of an override that a change changed, before and after, in
// words: a duration, a count, "the pool's" for a field left to the pool.
func reclaimFields(l phrase.Locale, old, new models.ReclaimOverride) []projectsview.ReclaimField {
	dur := func(s int64) string {
		if s == 0 {
			return l.T("reclaim.pool_default")
		}
		return l.Duration(time.Duration(s) * time.Second)
	}
	count := func(n int) string {
		if n == 0 {
			return l.T("reclaim.pool_default")
		}
		return l.Int(n)
	}
	never := func(b bool) string {
		if b {
			return l.T("audit.yes")
		}
		return l.T("reclaim.pool_default")
	}
	var out []projectsview.ReclaimField
	for _, f := range []struct {
		label, short, before, after string
	}{
		{l.T("reclaim.never"), l.T("change.reclaim_short.never", never(new.Never)), never(old.Never), never(new.Never)},
		{l.T("poolfield.reclaim_idle_s"), l.T("change.reclaim_short.idle", dur(new.IdleS)), dur(old.IdleS), dur(new.IdleS)},
		{l.T("poolfield.reclaim_grace_s"), l.T("change.reclaim_short.grace", dur(new.GraceS)), dur(old.GraceS), dur(new.GraceS)},
		{l.T("poolfield.reclaim_keep_for_s"), l.T("change.reclaim_short.keep_for", dur(new.KeepForS)), dur(old.KeepForS), dur(new.KeepForS)},
		{l.T("poolfield.reclaim_keeps_per_day"), l.T("change.reclaim_short.keeps", count(new.KeepsPerDay)), count(old.KeepsPerDay), count(new.KeepsPerDay)},
		{l.T("poolfield.reclaim_setup_grace_s"), l.T("change.reclaim_short.setup", dur(new.SetupGraceS)), dur(old.SetupGraceS), dur(new.SetupGraceS)},
	} {
		if f.before != f.after {
			out = append(out, projectsview.ReclaimField{Label: f.label, Before: f.before, After: f.after, Short: f.short})
		}
	}
	return out
}

// reclaimLabel is a reclaim change in a list: its new values of the fields it changed, in
// short ("Idle reclaim: notice 15m, answer 10m"); the page has the values before.
func reclaimLabel(l phrase.Locale, project string, old, new models.ReclaimOverride) string {
	fs := reclaimFields(l, old, new)
	if len(fs) == 0 {
		return l.T("change.reclaim_name", project)
	}
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = f.Short
	}
	return l.T("change.reclaim_row", strings.Join(parts, l.T("change.reclaim_short.sep")))
}

// reclaimChangeRows are the latest changes of the idle-reclaim overrides of the projects in
// list that the caller sees, by project id, the latest of each loading what it saved.
func (h *Handler) reclaimChangeRows(c echo.Context, list []api.Project) (map[int64][]projectsview.ChangeRow, error) {
	who, loc, l := handlers.Who(c), h.Loc(), handlers.Locale(c)
	out := map[int64][]projectsview.ChangeRow{}
	for _, pj := range list {
		if !who.CanSee(pj.ID) {
			continue
		}
		es, err := h.store.ReclaimEdits(c.Request().Context(), pj.ID, time.Time{}, time.Time{})
		if err != nil {
			return nil, err
		}
		for _, e := range es { // newest first
			if len(out[pj.ID]) == listedChanges {
				break
			}
			out[pj.ID] = append(out[pj.ID], projectsview.ChangeRow{URL: views.ReclaimChangeURL(pj.ID, e.ID), Label: reclaimLabel(l, pj.Name, e.Before, e.After),
				By: e.Actor, At: e.At.In(loc), Measured: len(out[pj.ID]) < measuredChanges})
		}
	}
	return out, nil
}
