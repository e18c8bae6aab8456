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
	"kashi/views"
	tasksview "kashi/views/tasks"
)

// TemplateFormCreate adds a template from the templates page's form (the project's leads),
// then shows its page; a refused field brings the page back (422) with the problem beside
// it. POST /projects/:id/templates.
func (h *Handler) TemplateFormCreate(c echo.Context) error {
	p, err := h.seenProject(c)
	if err != nil {
		return err
	}
	if err := leads(c, p.ID); err != nil {
		return err
	}
	f, err := readTemplateForm(c)
	if err != nil {
		return err
	}
	nt, problems := templateFromForm(f)
	nt.ProjectID = p.ID
	ctx, by := c.Request().Context(), handlers.Who(c).User.Name
	if len(problems) == 0 {
		t, err := h.store.CreateTemplate(ctx, nt, by, h.Cfg.TaskLimits, h.Now())
		if err := templateProblems(handlers.Locale(c), err, problems); err != nil {
			return err
		}
		if len(problems) == 0 {
			return c.Redirect(http.StatusSeeOther, "/templates/"+strconv.FormatInt(t.ID, 10)+"?notice="+tasksview.NoticeCreated)
		}
	} else if err := templateProblems(handlers.Locale(c), h.store.ValidateTemplate(ctx, nt, by, h.Cfg.TaskLimits), problems); err != nil {
		return err
	}
	f.Errors = problems
	d, err := h.templatesData(c, p, f)
	if err != nil {
		return err
	}
	return handlers.Render(c, http.StatusUnprocessableEntity, tasksview.Templates(handlers.Locale(c), d))
}

// TemplateFormUpdate changes a template from its page's form as a new version (the
// project's leads). POST /templates/:id.
func (h *Handler) TemplateFormUpdate(c echo.Context) error {
	t, err := h.seenTemplate(c)
	if err != nil {
		return err
	}
	if err := leads(c, t.ProjectID); err != nil {
		return err
	}
	f, err := readTemplateForm(c)
	if err != nil {
		return err
	}
	nt, problems := templateFromForm(f)
	ctx, by := c.Request().Context(), handlers.Who(c).User.Name
	if len(problems) == 0 {
		_, err := h.store.UpdateTemplate(ctx, t.ID, nt, by, h.Cfg.TaskLimits, h.Now())
		if err := templateProblems(handlers.Locale(c), err, problems); err != nil {
			return err
		}
		if len(problems) == 0 {
			return c.Redirect(http.StatusSeeOther, "/templates/"+strconv.FormatInt(t.ID, 10)+"?notice="+tasksview.NoticeSaved)
		}
	} else {
		nt.ProjectID = t.ProjectID
		if err := templateProblems(handlers.Locale(c), h.store.ValidateTemplate(ctx, nt, by, h.Cfg.TaskLimits), problems); err != nil {
			return err
		}
	}
	d, err := h.templateData(c, t)
	if err != nil {
		return err
	}
	f.Errors = problems
	d.Form = f
	return handlers.Render(c, http.StatusUnprocessableEntity, tasksview.Template(handlers.Locale(c), d))
}

// readTemplateForm reads the posted template form, bounded in size.
func readTemplateForm(c echo.Context) (tasksview.TemplateForm, error) {
	f, err := postedForm(c)
	if err != nil {
		return tasksview.TemplateForm{}, err
	}
	get := func(k string) string { return strings.TrimSpace(f.Get(k)) }
	return tasksview.TemplateForm{Name: get("name"), Description: get("description"), GPUs: get("gpus"), Specs: ticked(f["specs"]),
		Regions: ticked(f["regions"]),
		Queue:   get("queue"), Priority: get("priority"), EstGPUHours: get("est_gpu_hours"), MaxRuntimeH: get("max_runtime_h"),
		Command: f.Get("command"), EnvNames: f.Get("env_names"), Workdir: get("workdir"), Image: get("image"),
		DataCheck: get("data_check"), DataLocations: f.Get("data_locations"), Deferrable: f.Get("deferrable") != "",
		MaxAttempts: get("max_attempts"), RerunOnFailure: f.Get("rerun_on_failure") != "",
		MinInterNodeGbps: get("min_inter_node_gbps"), MinStorageMBps: get("min_storage_mbps"),
		AllowNoInterconnect: f.Get("allow_no_interconnect") != ""}, nil
}

// templateFromForm reads the template form as the submit form reads a task (the same
// numbers, command lines and data check), with env names one per line or separated by
// spaces or commas.
func templateFromForm(f tasksview.TemplateForm) (models.NewTemplate, map[string]views.FormError) {
	nt, problems := taskFromForm(tasksview.TaskFormValues{Name: f.Name, GPUs: f.GPUs, Specs: f.Specs, Regions: f.Regions, Queue: f.Queue,
		Priority: f.Priority, EstGPUHours: f.EstGPUHours, MaxRuntimeH: f.MaxRuntimeH, Command: f.Command,
		Workdir: f.Workdir, DataCheck: f.DataCheck, Deferrable: f.Deferrable, MaxAttempts: f.MaxAttempts, RerunOnFailure: f.RerunOnFailure,
		MinInterNodeGbps: f.MinInterNodeGbps, MinStorageMBps: f.MinStorageMBps, AllowNoInterconnect: f.AllowNoInterconnect}, false)
	body := models.TemplateBody{GPUs: nt.GPUs, Spec: nt.Spec, Specs: nt.Specs, Regions: nt.Regions, Queue: nt.Queue, Priority: nt.Priority,
		EstGPUHours: nt.EstGPUHours, MaxRuntimeS: int64(nt.MaxRuntime / time.Second), Command: nt.Command,
		EnvNames: strings.FieldsFunc(f.EnvNames, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\r' || r == '\t' }),
		Workdir:  nt.Workdir, Image: f.Image, Deferrable: nt.Deferrable, MaxAttempts: nt.MaxAttempts, RerunOnFailure: nt.RerunOnFailure,
		MinInterNodeGbps: nt.MinInterNodeGbps, MinStorageMBps: nt.MinStorageMBps, AllowNoInterconnect: nt.AllowNoInterconnect}
	if nt.MaxRuntime < 0 {
		body.MaxRuntimeS = -1 // refused by the store with the field named
	}
	if nt.DataCheck != (models.DataCheck{}) {
		dc := nt.DataCheck
		body.DataCheck = &dc
	}
	body.DataLocations = dataLocationLines(f.DataLocations, problems)
	return models.NewTemplate{Name: f.Name, Description: f.Description, Body: body}, problems
}

// dataLocationLines reads region=location lines (blank lines skipped) into a map; a line
// without '=' or a region set twice is a problem beside the input.
func dataLocationLines(text string, problems map[string]views.FormError) map[string]string {
	var out map[string]string
	n := 0
	for line := range strings.Lines(text) {
		n++
		if strings.TrimSpace(line) == "" {
			continue
		}
		region, loc, ok := strings.Cut(line, "=")
		region, loc = strings.TrimSpace(region), strings.TrimSpace(loc)
		switch {
		case !ok || region == "":
			problems["data_locations"] = views.FormError{Code: views.FormErrLocationLine, Line: n}
			return out
		case out[region] != "":
			problems["data_locations"] = views.FormError{Code: views.FormErrEnvDup, Line: n, Text: region}
			return out
		}
		if out == nil {
			out = make(map[string]string)
		}
		out[region] = loc
	}
	return out
}

// templateProblems adds the store's refusal of a template to the form's problems: each field
// error beside the input it names, in the page's language, unless the form has one there
// already; other errors pass on.
func templateProblems(l phrase.Locale, err error, problems map[string]views.FormError) error {
	fes := models.AllFieldErrors(err)
	if err != nil && fes == nil {
		return err
	}
	for _, fe := range fes {
		input := formInput(fe.Field)
		switch {
		case fe.Field == "name", fe.Field == "description", fe.Field == "image", strings.HasPrefix(fe.Field, "env_names"):
			input = strings.SplitN(fe.Field, "[", 2)[0]
		case strings.HasPrefix(fe.Field, "data_locations"):
			input = "data_locations"
		}
		if _, ok := problems[input]; !ok {
			problems[input] = views.FormError{Code: views.FormErrStore, Text: l.Problem(fe.Format, fe.Args, fe.Msg)}
		}
	}
	return nil
}
