package tasks

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
	"kashi/models"
	"kashi/views"
	tasksview "kashi/views/tasks"
)

// trialFormOrder is the trial form's fields as the store names them, in the form's order.
var trialFormOrder = []string{"specs", "spec", "sizes", "gpus", "bound_s", "work_units", "full_gpus"}

// TrialPage shows a trial: its runs' figures per spec and size and the full run it
// proposes, with the button that submits it. GET /trials/:id.
func (h *Handler) TrialPage(c echo.Context) error {
	id, err := handlers.PathID(c)
	if err != nil {
		return err
	}
	tr, err := h.visibleTrial(c, id)
	if err != nil {
		return err
	}
	j, err := h.trialJSON(c.Request().Context(), tr, h.Now())
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "no-cache")
	d := tasksview.TrialPageData{Trial: j, CanRun: handlers.Who(c).CanRun(tr.ProjectID)}
	return handlers.Render(c, http.StatusOK, tasksview.TrialPage(handlers.Locale(c), d))
}

// TrialForm is the form that starts a trial of task ?from=, a task the caller runs: every
// spec of the fleet to choose from, the task's own checked; sizes 1 and 2; 20 minutes. GET /trials/new.
func (h *Handler) TrialForm(c echo.Context) error {
	from, err := strconv.ParseInt(c.QueryParam("from"), 10, 64)
	if err != nil || from <= 0 {
		return handlers.BadRequest("from", "from must be a task id")
	}
	t, err := h.runnableTask(c, from)
	if err != nil {
		return err
	}
	vals := tasksview.TrialFormValues{From: strconv.FormatInt(from, 10), Sizes: "1, 2", BoundMin: "20"}
	if t.Spec != "" {
		vals.Specs = []string{t.Spec}
	}
	return h.renderTrialForm(c, http.StatusOK, t, vals, nil)
}

// renderTrialForm answers with the trial form of task t.
func (h *Handler) renderTrialForm(c echo.Context, status int, t models.TaskRow, vals tasksview.TrialFormValues, ps views.Problems) error {
	_, specs, _, err := h.store.BoardOptions(c.Request().Context())
	if err != nil {
		return err
	}
	d := tasksview.TrialFormData{FromID: t.ID, FromName: t.Name, Project: t.Project, SpecChoices: specs, Values: vals, Problems: ps}
	return handlers.Render(c, status, tasksview.TrialFormPage(handlers.Locale(c), d))
}

// TrialFormSubmit starts a trial from the form and opens its page (303), or answers the form
// with every problem (422). POST /trials.
func (h *Handler) TrialFormSubmit(c echo.Context) error {
	if err := c.Request().ParseForm(); err != nil {
		return handlers.BadRequest("form", "unreadable form")
	}
	f := c.Request().PostForm
	vals := tasksview.TrialFormValues{From: f.Get("from"), Specs: f["specs"], Sizes: f.Get("sizes"), BoundMin: f.Get("bound_min"),
		WorkUnits: f.Get("work_units"), FullGPUs: f.Get("full_gpus")}
	from, err := strconv.ParseInt(vals.From, 10, 64)
	if err != nil || from <= 0 {
		return handlers.BadRequest("from", "from must be a task id")
	}
	t, err := h.runnableTask(c, from)
	if err != nil {
		return err
	}
	l := handlers.Locale(c)
	var ps views.Problems
	bad := func(field, label, msg string) {
		ps = append(ps, views.Problem{Field: field, Text: label + l.T("valid.sep") + msg})
	}
	req := api.TrialRequest{FromTask: from, Specs: vals.Specs}
	for s := range strings.FieldsFuncSeq(vals.Sizes, func(r rune) bool { return r == ',' || r == ' ' || r == '，' }) {
		n, err := strconv.Atoi(s)
		if err != nil {
			bad("sizes", l.T("field.sizes"), l.T("trial.bad_sizes"))
			req.Sizes = nil // refused by the store too, so nothing is stored
			break
		}
		req.Sizes = append(req.Sizes, n)
	}
	if m, err := strconv.ParseInt(vals.BoundMin, 10, 64); err == nil && m > 0 && m <= 24*60 {
		req.BoundS = m * 60
	} else {
		bad("bound_s", l.T("field.bound_s"), l.T("trial.bad_bound"))
	}
	if vals.WorkUnits != "" {
		if req.WorkUnits, err = strconv.ParseInt(vals.WorkUnits, 10, 64); err != nil {
			bad("work_units", l.T("field.work_units"), l.T("trial.bad_number"))
			req.WorkUnits = -1
		}
	}
	if vals.FullGPUs != "" {
		if req.FullGPUs, err = strconv.Atoi(vals.FullGPUs); err != nil {
			bad("full_gpus", l.T("field.full_gpus"), l.T("trial.bad_number"))
			req.FullGPUs = -1
		}
	}
	nt, err := h.trialOf(c, req)
	if err != nil {
		return err
	}
	// Every problem at once: what the form could not read (each left as the store refuses
	// it, so nothing is stored) and what the store refuses of the rest.
	tr, _, err := h.store.CreateTrial(c.Request().Context(), nt, h.Cfg.TaskLimits, h.Now())
	if err == nil {
		h.Sched.Trigger()
		return c.Redirect(http.StatusSeeOther, "/trials/"+strconv.FormatInt(tr.ID, 10))
	}
	more, ok := handlers.FormProblems(l, err, trialFormOrder)
	if !ok {
		return err
	}
	for _, p := range more {
		if !slices.ContainsFunc(ps, func(q views.Problem) bool { return q.Field == p.Field }) {
			ps = append(ps, p)
		}
	}
	return h.renderTrialForm(c, http.StatusUnprocessableEntity, t, vals, ps.InFormOrder(trialFormOrder))
}
