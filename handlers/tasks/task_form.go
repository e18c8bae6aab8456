package tasks

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
	"kashi/models"
	"kashi/phrase"
	"kashi/views"
	tasksview "kashi/views/tasks"
)

// maxFormBody bounds a submitted form, as maxTaskBody bounds the JSON.
const maxFormBody = 256 << 10

// TaskFormSubmit submits a task from the queue page's form. A plain post is answered with a
// redirect to the queue (303), or the page with the form's problems (422). Through htmx the
// answer is the form: fresh with a notice and the refreshed lanes, or with its problems (422).
// POST /queue/tasks.
func (h *Handler) TaskFormSubmit(c echo.Context) error {
	vals, err := readTaskForm(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	if err := h.canSubmit(c, vals.Project); err != nil {
		return err
	}
	if vals.Owner, err = owner(handlers.Who(c), vals.Owner); err != nil {
		return err
	}
	nt, problems := taskFromForm(vals, false)
	nt.IdempotencyScope = handlers.Who(c).IdempotencyScope()
	tpl, err := h.formTemplate(c, vals.Template)
	if err != nil {
		return err
	}
	templateProblem(tpl, &nt, problems)
	// Every problem at once: what the form could not read, and what the store refuses of the
	// rest (checked without storing while the form has problems of its own).
	var created models.Task
	var queued *tasksview.QueuedTask
	if len(problems) == 0 {
		if handlers.IsHTMX(c) {
			if queued, err = h.queuedTask(ctx, nt); err != nil {
				return err
			}
		}
		created, _, err = h.store.CreateTask(ctx, nt, h.Cfg.TaskLimits, h.Now())
	} else {
		err = h.store.ValidateTask(ctx, nt, h.Cfg.TaskLimits)
	}
	if err = formProblems(handlers.Locale(c), err, problems); err != nil {
		return err
	}
	runtimeProblem(problems, nt, h.Cfg.TaskLimits)
	l := handlers.Locale(c)
	if len(problems) > 0 {
		d, err := h.queueData(ctx, handlers.Who(c), h.Now(), withTemplate(tasksview.TaskForm{Values: vals, Errors: problems}, tpl))
		if err != nil {
			return err
		}
		if handlers.IsHTMX(c) {
			return handlers.Render(c, http.StatusUnprocessableEntity, tasksview.TaskFormSection(l, d.Form))
		}
		return handlers.Render(c, http.StatusUnprocessableEntity, tasksview.Queue(l, d))
	}
	h.Sched.Trigger()
	if !handlers.IsHTMX(c) {
		return c.Redirect(http.StatusSeeOther, "/queue")
	}
	// The next task is likely of the same project and owner.
	form := newTaskForm(tasksview.TaskFormValues{Project: vals.Project, Owner: vals.Owner})
	form.Created, form.Queued = created.ID, queued
	d, err := h.queueData(ctx, handlers.Who(c), h.Now(), form)
	if err != nil {
		return err
	}
	return handlers.Render(c, http.StatusOK, tasksview.TaskFormAnswer(l, d))
}

// TaskFormValidate checks the form by the rules a submit applies, storing nothing, and
// answers with the form's status and the problem beside each input (422 when there is one).
// Inputs left empty are not checked yet, so a half-filled form shows no complaints about
// what the user has not reached. POST /queue/tasks/validate.
func (h *Handler) TaskFormValidate(c echo.Context) error {
	vals, err := readTaskForm(c)
	if err != nil {
		return err
	}
	nt, problems := taskFromForm(vals, true)
	if err := formProblems(handlers.Locale(c), h.store.ValidateTask(c.Request().Context(), nt, h.Cfg.TaskLimits), problems); err != nil {
		return err
	}
	runtimeProblem(problems, nt, h.Cfg.TaskLimits)
	status := http.StatusOK
	if len(problems) > 0 {
		status = http.StatusUnprocessableEntity
	}
	f := tasksview.TaskForm{Values: vals, Errors: problems, Checked: true, Priorities: models.Priorities}
	// What the project (perhaps another since the last answer) may use of each spec.
	if h.canSubmit(c, vals.Project) == nil {
		now := h.Now()
		view, err := h.Sched.Queue(c.Request().Context(), now)
		if err != nil {
			return err
		}
		if f.Access, err = h.specAccess(c.Request().Context(), view, vals.Project, capacitySpecs(view, vals.Specs), now); err != nil {
			return err
		}
	}
	// A valid form that names its project and cards gets a dry run, when the caller may
	// submit to the project.
	if len(problems) == 0 && vals.Project != "" && vals.GPUs != "" && h.canSubmit(c, vals.Project) == nil {
		now := h.Now()
		d, err := h.dryRun(c.Request().Context(), nt, now)
		if err != nil {
			return err
		}
		f.Estimate = d.estimate(now)
	}
	return handlers.Render(c, status, tasksview.TaskFormChecked(handlers.Locale(c), f))
}

// queuedTask is where nt will stand once submitted: its lane, position and expected start,
// tried on the queue as it is before the task is stored (a trial of the stored task would
// find its twin in the queue). nil when the project is not known, for the store to refuse.
func (h *Handler) queuedTask(ctx context.Context, nt models.NewTask) (*tasksview.QueuedTask, error) {
	now := h.Now()
	d, err := h.dryRun(ctx, nt, now)
	switch {
	case errors.Is(err, models.ErrNotFound):
		return nil, nil
	case err != nil:
		return nil, err
	}
	w := d.waitRow()
	w.Position = d.Position
	if d.wait.Starting {
		w.Position = 0
	}
	return &tasksview.QueuedTask{Lane: d.Lane, Now: now, Wait: w}, nil
}

// newTaskForm is a form with vals and the defaults of what vals leaves empty filled in and a fresh idempotency
// key, so that a double submit stores one task.
func newTaskForm(vals tasksview.TaskFormValues) tasksview.TaskForm {
	vals.Queue, vals.Priority, vals.DataReady = cmp.Or(vals.Queue, models.QueueLong), cmp.Or(vals.Priority, models.PriorityNormal), true
	var b [16]byte
	rand.Read(b[:])
	vals.IdempotencyKey = "form-" + hex.EncodeToString(b[:])
	return tasksview.TaskForm{Values: vals}
}

// postedForm parses a posted form, bounded in size: 413 past maxFormBody, 400 when malformed.
func postedForm(c echo.Context) (url.Values, error) {
	r := c.Request()
	r.Body = http.MaxBytesReader(c.Response(), r.Body, maxFormBody)
	if err := r.ParseForm(); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, echo.NewHTTPError(http.StatusRequestEntityTooLarge, "the form is too large")
		}
		return nil, echo.NewHTTPError(http.StatusBadRequest, "malformed form")
	}
	return r.PostForm, nil
}

// readTaskForm reads the posted form's values, bounded in size.
func readTaskForm(c echo.Context) (tasksview.TaskFormValues, error) {
	f, err := postedForm(c)
	if err != nil {
		return tasksview.TaskFormValues{}, err
	}
	get := func(k string) string { return strings.TrimSpace(f.Get(k)) }
	return tasksview.TaskFormValues{Project: get("project"), Name: get("name"), Owner: get("owner"), GPUs: get("gpus"),
		Specs: ticked(f["specs"]), Regions: ticked(f["regions"]), Queue: get("queue"), Priority: get("priority"), EstGPUHours: get("est_gpu_hours"),
		MaxRuntimeH: get("max_runtime_h"), Command: f.Get("command"), Env: f.Get("env"), Workdir: get("workdir"),
		Image: get("image"), DataReady: f.Get("data_ready") != "", DataCheck: get("data_check"), Deferrable: f.Get("deferrable") != "",
		IdempotencyKey: get("idempotency_key"), Template: get("template"), Model: get("model"), Replicas: get("replicas"),
		MetricsPort: get("metrics_port"), MetricsPath: get("metrics_path"), HealthPath: get("health_path"), TTFTTargetMS: get("ttft_target_ms"),
		MaxAttempts: get("max_attempts"), RerunOnFailure: f.Get("rerun_on_failure") != "",
		MinInterNodeGbps: get("min_inter_node_gbps"), MinStorageMBps: get("min_storage_mbps"),
		AllowNoInterconnect: f.Get("allow_no_interconnect") != ""}, nil
}

// ticked is the values of a group of checkboxes, trimmed, without empty ones; repeats stay
// for the store to refuse, as it refuses them from the API.
func ticked(values []string) []string {
	var out []string
	for _, v := range values {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// taskFromForm turns the form's values into the store's input and the problems found while
// reading them: numbers that are not numbers, environment lines that are not KEY=VALUE. The
// command takes one argument per line (a line's text is the argument, as typed: there is no
// shell and no quoting); blank lines are skipped. With partial (inline validation), required
// inputs left empty get placeholders so that only what was filled in is checked.
func taskFromForm(v tasksview.TaskFormValues, partial bool) (models.NewTask, map[string]views.FormError) {
	problems := make(map[string]views.FormError)
	nt := models.NewTask{Project: v.Project, Name: v.Name, Owner: v.Owner, Regions: v.Regions, Queue: v.Queue,
		Priority: v.Priority, Workdir: v.Workdir, Image: v.Image, DataReady: v.DataReady, Deferrable: v.Deferrable,
		RerunOnFailure: v.RerunOnFailure, AllowNoInterconnect: v.AllowNoInterconnect}
	// One spec ticked is the task's spec, as the API's "spec"; several are its "specs".
	switch len(v.Specs) {
	case 0:
	case 1:
		nt.Spec = v.Specs[0]
	default:
		nt.Specs = v.Specs
	}
	if !partial {
		nt.IdempotencyKey = v.IdempotencyKey
	}
	if nt.Queue == "" {
		nt.Queue = models.QueueLong
	}
	if nt.Priority == "" {
		nt.Priority = models.PriorityNormal
	}
	if v.GPUs != "" {
		n, err := strconv.Atoi(v.GPUs)
		if err != nil {
			problems["gpus"] = views.FormError{Code: views.FormErrInt}
		}
		nt.GPUs = n
	}
	if v.MaxAttempts != "" {
		n, err := strconv.Atoi(v.MaxAttempts)
		if err != nil {
			problems["max_attempts"] = views.FormError{Code: views.FormErrInt}
		}
		nt.MaxAttempts = n
	}
	formInt(problems, "min_inter_node_gbps", v.MinInterNodeGbps, &nt.MinInterNodeGbps)
	formInt(problems, "min_storage_mbps", v.MinStorageMBps, &nt.MinStorageMBps)
	if v.EstGPUHours != "" {
		x, err := strconv.ParseFloat(v.EstGPUHours, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			problems["est_gpu_hours"] = views.FormError{Code: views.FormErrNumber}
		}
		nt.EstGPUHours = x
	}
	if v.MaxRuntimeH != "" {
		x, err := strconv.ParseFloat(v.MaxRuntimeH, 64)
		switch {
		case err != nil || math.IsNaN(x) || math.IsInf(x, 0):
			problems["max_runtime_h"] = views.FormError{Code: views.FormErrNumber}
		case x <= 0:
			nt.MaxRuntime = -1 // refused by the store with the field named
		default:
			// Capped far beyond any queue's limit, so the store refuses it as too long.
			nt.MaxRuntime = time.Duration(min(x, 1e6) * float64(time.Hour))
		}
	}
	if v.Model != "" {
		nt.Kind, nt.Service.Model, nt.Service.MetricsPath, nt.Service.HealthPath = models.TaskKindService, v.Model, v.MetricsPath, v.HealthPath
		for _, in := range []struct {
			name, text string
			into       *int
		}{{"replicas", v.Replicas, &nt.Service.Replicas}, {"metrics_port", v.MetricsPort, &nt.Service.MetricsPort},
			{"ttft_target_ms", v.TTFTTargetMS, &nt.Service.TTFTTargetMS}} {
			if in.text == "" {
				continue
			}
			n, err := strconv.Atoi(in.text)
			if err != nil {
				problems[in.name] = views.FormError{Code: views.FormErrInt}
			}
			*in.into = n
		}
		if partial && nt.Service.MetricsPort == 0 {
			nt.Service.MetricsPort = 1
		}
	}
	for line := range strings.Lines(v.Command) {
		if strings.TrimSpace(line) != "" {
			nt.Command = append(nt.Command, strings.TrimRight(line, "\r\n"))
		}
	}
	n := 0
	for line := range strings.Lines(v.Env) {
		n++
		line = strings.TrimRight(line, "\r\n")
		if strings.TrimSpace(line) == "" {
			continue
		}
		key, val, ok := strings.Cut(line, "=")
		key = strings.TrimSpace(key)
		if !ok || key == "" {
			problems["env"] = views.FormError{Code: views.FormErrEnvLine, Line: n}
			break
		}
		if _, dup := nt.Env[key]; dup {
			problems["env"] = views.FormError{Code: views.FormErrEnvDup, Line: n, Text: key}
			break
		}
		if nt.Env == nil {
			nt.Env = make(map[string]string)
		}
		nt.Env[key] = val
	}
	if v.DataCheck != "" {
		if strings.Contains(v.DataCheck, "://") {
			nt.DataCheck.URL = v.DataCheck
		} else {
			nt.DataCheck.Path = v.DataCheck
		}
	}
	if partial {
		if nt.Name == "" {
			nt.Name = "-"
		}
		if nt.Owner == "" {
			nt.Owner = "-"
		}
		if v.GPUs == "" {
			nt.GPUs = 1
		}
		if len(nt.Command) == 0 {
			nt.Command = []string{"-"}
		}
	}
	return nt, problems
}

// formProblems adds the store's verdict to the form's problems: each field error it carries
// becomes a problem beside the input it names, in the page's language, unless the form has
// one there already (an input the form could not read is refused by the store too). Any
// other error is returned as it is.
func formProblems(l phrase.Locale, err error, problems map[string]views.FormError) error {
	fes := models.AllFieldErrors(err)
	if err != nil && fes == nil {
		return err
	}
	for _, fe := range fes {
		in := formInput(fe.Field)
		if _, ok := problems[in]; !ok {
			problems[in] = views.FormError{Code: views.FormErrStore, Text: l.Problem(fe.Format, fe.Args, fe.Msg)}
		}
	}
	return nil
}

// formInput maps a store field ("gpus", "spec", "max_runtime_s", "command[0]", "env.PATH",
// "data_check.url") to the form input it comes from; "" for the form as a whole.
func formInput(field string) string {
	switch field {
	case "project", "name", "owner", "gpus", "queue", "priority", "est_gpu_hours", "workdir", "image", "regions",
		"model", "replicas", "metrics_port", "metrics_path", "health_path", "ttft_target_ms", "max_attempts", "rerun_on_failure",
		"min_inter_node_gbps", "min_storage_mbps", "allow_no_interconnect":
		return field
	case "spec", "specs":
		return "specs"
	case "kind":
		return "model"
	case "max_runtime_s":
		return "max_runtime_h"
	}
	for _, in := range []string{"command", "env", "data_check"} {
		if field == in || strings.HasPrefix(field, in+"[") || strings.HasPrefix(field, in+".") {
			return in
		}
	}
	return ""
}

// runtimeProblem restates the store's refusal of a max runtime over the lane's limit in the
// user's units: the limit, the lane and what was asked.
func runtimeProblem(problems map[string]views.FormError, nt models.NewTask, lim models.TaskLimits) {
	if _, ok := problems["max_runtime_h"]; !ok {
		return
	}
	max := lim.LongMaxRuntime
	if nt.Queue == models.QueueShort {
		max = lim.ShortMaxRuntime
	}
	if max > 0 && nt.MaxRuntime > max {
		problems["max_runtime_h"] = views.FormError{Code: views.FormErrRuntimeOver, Text: nt.Queue, Max: max, Asked: nt.MaxRuntime}
	}
}

// formInt reads the whole number the form's input name holds into n, noting a problem when
// it is not one; empty leaves n as it is.
func formInt(problems map[string]views.FormError, name, v string, n *int) {
	if v == "" {
		return
	}
	x, err := strconv.Atoi(v)
	if err != nil {
		problems[name] = views.FormError{Code: views.FormErrInt}
	}
	*n = x
}
