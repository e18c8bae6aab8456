package tasks

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
	"go.yaml.in/yaml/v3"

	"kashi/api"
	"kashi/handlers"
	"kashi/models"
	"kashi/views"
	tasksview "kashi/views/tasks"
)

// PipelineFormCreate submits the pipeline written in the /pipelines form: the file `kashi
// submit --pipeline` takes (YAML or JSON: name, project and stages), through the API's own
// path (PipelineCreate's newPipeline), so the form refuses what the API refuses. On to the
// pipeline's page; or the list again with the text kept and the problem named, 422 (403 for a
// project the user does not run tasks of). POST /pipelines.
func (h *Handler) PipelineFormCreate(c echo.Context) error {
	text := c.FormValue("pipeline")
	var err error
	if c.FormValue("as") == "template" {
		var t models.TaskTemplate
		if t, err = h.pipelineTemplateFromText(c, text); err == nil {
			return c.Redirect(http.StatusSeeOther, string(views.TemplateURL(t.ID)))
		}
	} else {
		var p models.Pipeline
		if p, err = h.pipelineFromText(c, text); err == nil {
			h.Sched.Trigger()
			return c.Redirect(http.StatusSeeOther, views.PipelineURL(p.ID)+"?notice="+tasksview.NoticeSubmitted)
		}
	}
	status := http.StatusUnprocessableEntity
	var he *echo.HTTPError
	var fe *models.FieldError
	switch {
	case errors.As(err, &he):
		if he.Code == http.StatusForbidden || he.Code == http.StatusNotFound {
			status = he.Code
		}
	case !errors.As(err, &fe):
		return err
	}
	return h.renderPipelines(c, status, tasksview.PipelineForm{Text: text, Problem: handlers.Problem(handlers.Locale(c), err)})
}

// readPipelineFile reads a pipeline file's text (YAML or JSON) as the API's body.
func readPipelineFile(text string) (api.PipelineSubmission, error) {
	var f api.PipelineSubmission
	if len(text) > maxPipelineBody || !utf8.ValidString(text) {
		return f, models.Invalid("pipeline", "must be valid UTF-8 of at most %d bytes", maxPipelineBody)
	}
	var doc any
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil || doc == nil {
		return f, models.Invalid("pipeline", "must be a pipeline in YAML or JSON: name, project and stages")
	}
	body, err := json.Marshal(doc)
	if err != nil {
		return f, models.Invalid("pipeline", "must be a pipeline in YAML or JSON: name, project and stages")
	}
	if err := handlers.DecodeBody(body, maxPipelineBody, &f); err != nil {
		return f, err
	}
	if f.Template != 0 {
		return f, models.Invalid("template", "must be left out: submit a pipeline template from its page")
	}
	return f, nil
}

// pipelineFromText reads a pipeline file's text as the API's body and submits it.
func (h *Handler) pipelineFromText(c echo.Context, text string) (models.Pipeline, error) {
	f, err := readPipelineFile(text)
	if err != nil {
		return models.Pipeline{}, err
	}
	return h.newPipeline(c, f.PipelineRequest, f.Stages)
}

// pipelineTemplateFromText saves a pipeline file's text as a pipeline template of its
// project (its leads and admins), as POST /api/v1/projects/:id/templates would: each stage's
// name, after, after_ended and output stay the stage's, its other fields become its task's.
func (h *Handler) pipelineTemplateFromText(c echo.Context, text string) (models.TaskTemplate, error) {
	f, err := readPipelineFile(text)
	if err != nil {
		return models.TaskTemplate{}, err
	}
	p, err := h.store.ProjectByName(c.Request().Context(), f.Project)
	if errors.Is(err, models.ErrNotFound) || err == nil && !handlers.Who(c).CanSee(p.ID) {
		return models.TaskTemplate{}, models.Invalid("project", "must be a project you lead")
	}
	if err != nil {
		return models.TaskTemplate{}, err
	}
	if err := leads(c, p.ID); err != nil {
		return models.TaskTemplate{}, err
	}
	req := newTemplateRequest()
	req.Name = f.Name
	req.Queue, req.Priority = "", ""
	for i, raw := range f.Stages {
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(raw, &fields); err != nil {
			return models.TaskTemplate{}, models.Invalid(fmt.Sprintf("stages[%d]", i), "must be a stage: a task's fields with its name")
		}
		stage := map[string]json.RawMessage{}
		for _, k := range []string{"name", "after", "after_ended", "output"} {
			if v, ok := fields[k]; ok {
				stage[k] = v
				delete(fields, k)
			}
		}
		stage["task"], _ = json.Marshal(fields)
		b, _ := json.Marshal(stage)
		var st api.TemplateStage
		if err := handlers.DecodeBody(b, maxTemplateBody, &st); err != nil {
			return models.TaskTemplate{}, stageError(i, err)
		}
		req.Stages = append(req.Stages, st)
	}
	stageDefaults(&req.TemplateBody)
	t, err := h.store.CreateTemplate(c.Request().Context(), models.NewTemplate{ProjectID: p.ID, Name: req.Name,
		Description: req.Description, Body: sameJSON[models.TemplateBody](req.TemplateBody)}, handlers.Who(c).User.Name, h.Cfg.TaskLimits, h.Now())
	if err != nil {
		return models.TaskTemplate{}, err
	}
	return t, nil
}
