package tasks

import (
	"encoding/json"
	"errors"
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
	p, err := h.pipelineFromText(c, text)
	if err == nil {
		h.Sched.Trigger()
		return c.Redirect(http.StatusSeeOther, views.PipelineURL(p.ID)+"?notice="+tasksview.NoticeSubmitted)
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

// pipelineFromText reads a pipeline file's text as the API's body and submits it.
func (h *Handler) pipelineFromText(c echo.Context, text string) (models.Pipeline, error) {
	if len(text) > maxPipelineBody || !utf8.ValidString(text) {
		return models.Pipeline{}, models.Invalid("pipeline", "must be valid UTF-8 of at most %d bytes", maxPipelineBody)
	}
	var doc any
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil || doc == nil {
		return models.Pipeline{}, models.Invalid("pipeline", "must be a pipeline in YAML or JSON: name, project and stages")
	}
	body, err := json.Marshal(doc)
	if err != nil {
		return models.Pipeline{}, models.Invalid("pipeline", "must be a pipeline in YAML or JSON: name, project and stages")
	}
	var req struct {
		api.PipelineRequest
		Stages []json.RawMessage `json:"stages"`
	}
	if err := handlers.DecodeBody(body, maxPipelineBody, &req); err != nil {
		return models.Pipeline{}, err
	}
	if req.Template != 0 {
		return models.Pipeline{}, models.Invalid("template", "must be left out: submit a pipeline template from its page")
	}
	return h.newPipeline(c, req.PipelineRequest, req.Stages)
}
