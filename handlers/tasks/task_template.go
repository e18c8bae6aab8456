package tasks

import (
	"context"
	"encoding/json"
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

// fromTemplate is a submit from the template id names: the template's fields (its project,
// its name, data ready unless it declares a data check or a checkable data location), then the body's own fields over
// them. The template of a project the caller does not see is 404; a project other than the
// template's, or an env name the template lists without a value, is 422.
func (h *Handler) fromTemplate(c echo.Context, id int64, body []byte) (models.TaskTemplate, api.TaskRequest, error) {
	ctx := c.Request().Context()
	t, err := visibleTemplate(c, h.store, id)
	if err != nil {
		return t, api.TaskRequest{}, handlers.StoreError(err)
	}
	p, err := h.store.ProjectByID(ctx, t.ProjectID)
	if err != nil {
		return t, api.TaskRequest{}, handlers.StoreError(err)
	}
	fields := t.Fields()
	ready := !fields.WaitsForData()
	req := api.TaskRequest{Project: p.Name, Name: t.Name, DataReady: &ready}
	raw, _ := json.Marshal(fields) // plain data; never fails
	json.Unmarshal(raw, &req)      // the template's fields have the request's names
	req.DataLocations = nil
	if err := handlers.DecodeBody(body, maxTaskBody, &req); err != nil {
		return t, req, err
	}
	if req.DataLocations == nil {
		req.DataLocations = locationsIn(fields.DataLocations, req.Regions)
	}
	if req.Project != p.Name {
		return t, req, handlers.APIError(http.StatusUnprocessableEntity, &models.FieldError{Field: "project",
			Msg: "template " + t.Name + " belongs to project " + p.Name})
	}
	if missing := fields.MissingEnv(req.Env); missing != "" {
		return t, req, handlers.APIError(http.StatusUnprocessableEntity, &models.FieldError{Field: "env." + missing,
			Msg: "the template needs a value for " + missing})
	}
	return t, req, nil
}

// formTemplate loads the template a submit form was filled from (id as posted; "" for
// none: the zero template). One the caller does not see is 404, as on the API.
func (h *Handler) formTemplate(c echo.Context, id string) (models.TaskTemplate, error) {
	if id == "" {
		return models.TaskTemplate{}, nil
	}
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil || n <= 0 {
		return models.TaskTemplate{}, handlers.BadRequest("template", "template must be a template id")
	}
	t, err := visibleTemplate(c, h.store, n)
	return t, handlers.StoreError(err)
}

// templateStore is where visibleTemplate reads a template.
type templateStore interface {
	TemplateByID(ctx context.Context, id int64) (models.TaskTemplate, error)
}

// visibleTemplate loads template id when the caller sees its project; another project's is
// models.ErrNotFound, as one that does not exist.
func visibleTemplate(c echo.Context, st templateStore, id int64) (models.TaskTemplate, error) {
	t, err := st.TemplateByID(c.Request().Context(), id)
	if err == nil && !handlers.Who(c).CanSee(t.ProjectID) {
		return models.TaskTemplate{}, models.ErrNotFound
	}
	return t, err
}

// withTemplate is form f bound to template t (none when t is the zero template): the form
// posts t's id and names it, with the data locations a submit from it applies.
func withTemplate(f tasksview.TaskForm, t models.TaskTemplate) tasksview.TaskForm {
	if t.ID == 0 {
		return f
	}
	f.Values.Template = strconv.FormatInt(t.ID, 10)
	f.TemplateName, f.TemplateVersion, f.TemplateDataLocations = t.Name, t.Version, dataLocationText(t.Fields().DataLocations)
	return f
}

// templateProblem records the form's template on its task, at the template's current
// version, and adds a problem for each env name of the template left without a value. The
// form has no input for the data's region or its locations per region: the template's data
// check keeps its region while the form keeps its path or URL, and its data locations apply.
func templateProblem(t models.TaskTemplate, nt *models.NewTask, problems map[string]views.FormError) {
	if t.ID == 0 {
		return
	}
	b := t.Fields()
	nt.TemplateID, nt.TemplateVersion = t.ID, t.Version
	nt.DataLocations = locationsIn(b.DataLocations, nt.Regions)
	if dc := b.DataCheck; dc != nil && dc.Path == nt.DataCheck.Path && dc.URL == nt.DataCheck.URL {
		nt.DataCheck.Region = dc.Region
	}
	for _, name := range b.EnvNames {
		if nt.Env[name] == "" {
			if _, ok := problems["env"]; !ok {
				problems["env"] = views.FormError{Code: views.FormErrEnvMissing, Text: name}
			}
		}
	}
}

// templateForm is a new submit form filled from the template ?template= names: its
// project, name and fields, its env names as KEY= lines to fill in, data not ready when it
// declares a data check. Every field may be changed before submitting.
func (h *Handler) templateForm(c echo.Context, id string) (tasksview.TaskForm, error) {
	t, err := h.formTemplate(c, id)
	if err != nil {
		return tasksview.TaskForm{}, err
	}
	p, err := h.store.ProjectByID(c.Request().Context(), t.ProjectID)
	if err != nil {
		return tasksview.TaskForm{}, handlers.StoreError(err)
	}
	b := t.Fields()
	vals := tasksview.TaskFormValues{Project: p.Name, Name: t.Name, Specs: b.SpecChoices(), Regions: b.Regions, Queue: b.Queue, Priority: b.Priority,
		Command: strings.Join(b.Command, "\n"), Workdir: b.Workdir, Deferrable: b.Deferrable}
	if b.GPUs > 0 {
		vals.GPUs = strconv.Itoa(b.GPUs)
	}
	if b.EstGPUHours > 0 {
		vals.EstGPUHours = strconv.FormatFloat(b.EstGPUHours, 'f', -1, 64)
	}
	if b.MaxRuntimeS > 0 {
		vals.MaxRuntimeH = strconv.FormatFloat(float64(b.MaxRuntimeS)/3600, 'f', -1, 64)
	}
	if b.MaxAttempts > 0 {
		vals.MaxAttempts = strconv.Itoa(b.MaxAttempts)
	}
	vals.RerunOnFailure = b.RerunOnFailure
	vals.MinInterNodeGbps, vals.MinStorageMBps, vals.AllowNoInterconnect = positive(b.MinInterNodeGbps), positive(b.MinStorageMBps), b.AllowNoInterconnect
	for _, name := range b.EnvNames {
		vals.Env += name + "=\n"
	}
	f := newTaskForm(vals)
	if b.DataCheck != nil {
		f.Values.DataCheck = b.DataCheck.Path + b.DataCheck.URL
	}
	f.Values.DataReady = !b.WaitsForData()
	return withTemplate(f, t), nil
}

// locationsIn is a template's data locations of the regions a submit accepts: all of them
// when it names no region, so that narrowing the regions drops the others' locations
// rather than being refused.
func locationsIn(locations map[string]string, regions []string) map[string]string {
	var out map[string]string
	for region, loc := range locations {
		if len(regions) == 0 || slices.Contains(regions, region) {
			if out == nil {
				out = make(map[string]string)
			}
			out[region] = loc
		}
	}
	return out
}

// positive is n as a form shows it: "" for none.
func positive(n int) string {
	if n <= 0 {
		return ""
	}
	return strconv.Itoa(n)
}
