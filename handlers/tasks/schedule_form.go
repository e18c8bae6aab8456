package tasks

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
	"kashi/models"
	"kashi/phrase"
	"kashi/schedule"
	"kashi/views"
	tasksview "kashi/views/tasks"
)

// ScheduleFormCreate runs a template on a schedule from its page's form (the project's
// leads); the start deadline is typed in minutes. A refused field brings the page back
// (422) naming it. POST /templates/:id/schedules.
func (h *Handler) ScheduleFormCreate(c echo.Context) error {
	t, err := h.seenTemplate(c)
	if err != nil {
		return err
	}
	if err := leads(c, t.ProjectID); err != nil {
		return err
	}
	f := readScheduleForm(c)
	ts, err := scheduleFromForm(f)
	if err == nil {
		ts.TemplateID, ts.Owner = t.ID, handlers.Who(c).User.Name
		_, err = h.store.CreateSchedule(c.Request().Context(), ts, h.Now())
		if err == nil {
			return c.Redirect(http.StatusSeeOther, "/templates/"+strconv.FormatInt(t.ID, 10)+"?notice="+tasksview.NoticeScheduled+"#schedules")
		}
		if models.AllFieldErrors(err) == nil {
			return handlers.StoreError(err)
		}
	}
	d, derr := h.templateData(c, t)
	if derr != nil {
		return derr
	}
	f.Problems = scheduleProblems(handlers.Locale(c), err)
	d.ScheduleForm = f
	return handlers.Render(c, http.StatusUnprocessableEntity, tasksview.Template(handlers.Locale(c), d))
}

// SchedulePreview answers the schedule form as it is typed: the next five runs in the
// zone, or the problem naming its field (422). POST /templates/:id/schedules/preview.
func (h *Handler) SchedulePreview(c echo.Context) error {
	if _, err := h.seenTemplate(c); err != nil {
		return err
	}
	f := readScheduleForm(c)
	if _, err := scheduleFromForm(f); err != nil {
		f.Problems = scheduleProblems(handlers.Locale(c), err)
		return handlers.Render(c, http.StatusUnprocessableEntity, tasksview.SchedulePreview(handlers.Locale(c), f, nil))
	}
	s, _ := schedule.Parse(f.Cron, f.TimeZone) // parsed by scheduleFromForm
	loc, _ := time.LoadLocation(f.TimeZone)
	var next []time.Time
	for _, n := range s.Next(h.Now(), 5) {
		next = append(next, n.In(loc))
	}
	return handlers.Render(c, http.StatusOK, tasksview.SchedulePreview(handlers.Locale(c), f, next))
}

// ScheduleFormSuspend suspends a schedule from its template's page.
// POST /schedules/:id/suspend.
func (h *Handler) ScheduleFormSuspend(c echo.Context) error { return h.setSuspendedForm(c, true) }

// ScheduleFormResume resumes a schedule from its template's page: runs are planned from
// now. POST /schedules/:id/resume.
func (h *Handler) ScheduleFormResume(c echo.Context) error { return h.setSuspendedForm(c, false) }

func (h *Handler) setSuspendedForm(c echo.Context, suspended bool) error {
	ts, err := h.ledSchedule(c)
	if err != nil {
		return err
	}
	if err := h.store.SetScheduleSuspended(c.Request().Context(), ts.ID, suspended, h.Now()); err != nil {
		return handlers.StoreError(err)
	}
	notice := tasksview.NoticeResumed
	if suspended {
		notice = tasksview.NoticeSuspended
	}
	return c.Redirect(http.StatusSeeOther, "/templates/"+strconv.FormatInt(ts.TemplateID, 10)+"?notice="+notice+"#schedules")
}

// readScheduleForm reads the schedule form's text.
func readScheduleForm(c echo.Context) tasksview.ScheduleForm {
	get := func(k string) string { return strings.TrimSpace(c.FormValue(k)) }
	return tasksview.ScheduleForm{Cron: get("cron"), TimeZone: get("time_zone"), Overlap: get("overlap"),
		StartDeadlineMin: get("start_deadline_min")}
}

// scheduleFromForm checks the schedule form: the expression, the zone and the deadline in
// whole minutes, every bad one named; the store checks the rest.
func scheduleFromForm(f tasksview.ScheduleForm) (models.TaskSchedule, error) {
	var ps models.Problems
	ps.Add(checkCron(f.Cron, f.TimeZone))
	min, err := strconv.ParseInt(f.StartDeadlineMin, 10, 64)
	if err != nil || min < 1 || min > int64(schedule.MaxDeadline/time.Minute) {
		ps.Add(&models.FieldError{Field: "start_deadline_s", Msg: "a whole number of minutes"})
	}
	return models.TaskSchedule{Cron: f.Cron, TimeZone: f.TimeZone, Overlap: f.Overlap, StartDeadlineS: min * 60}, ps.Err()
}

// checkCron refuses an expression that does not parse (naming "cron") and a zone that is
// not an IANA name (naming "time_zone"), both at once.
func checkCron(expr, zone string) error {
	var ps models.Problems
	if _, err := schedule.Parse(expr, "UTC"); err != nil {
		ps.Add(&models.FieldError{Field: "cron", Msg: err.Error()})
	}
	// The zone is checked on an expression that parses, whatever the one given.
	if _, err := schedule.Parse("0 0 * * *", zone); err != nil {
		ps.Add(&models.FieldError{Field: "time_zone", Msg: err.Error()})
	}
	return ps.Err()
}

// scheduleProblems are a refused schedule's problems in the page's language: the form's
// own in the catalog's words, which name their field, the store's led by their field's label.
func scheduleProblems(l phrase.Locale, err error) views.Problems {
	var ps views.Problems
	for _, fe := range models.AllFieldErrors(err) {
		text := handlers.Invalid(l, fe)
		switch fe.Field {
		case "cron":
			text = l.T("sched.err.cron")
		case "time_zone":
			text = l.T("sched.err.time_zone")
		case "start_deadline_s":
			text = l.T("sched.err.deadline")
		}
		ps = append(ps, views.Problem{Field: fe.Field, Text: text})
	}
	return ps.InFormOrder(tasksview.ScheduleFields)
}
