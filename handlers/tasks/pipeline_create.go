package tasks

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
	"kashi/models"
)

// maxPipelineBody bounds a pipeline submission: up to MaxStages stages of a task each.
const maxPipelineBody = 1 << 20

// PipelineCreate submits a pipeline to a project the caller runs tasks of; its first stages
// are submitted at once, the others once their parents are done. A stage with "template"
// starts from the template's fields, as a task does; a request with "template" submits that
// pipeline template. POST /api/v1/pipelines.
func (h *Handler) PipelineCreate(c echo.Context) error {
	body, err := handlers.ReadJSON(c, maxPipelineBody)
	if err != nil {
		return err
	}
	var req api.PipelineSubmission
	if err := handlers.DecodeBody(body, maxPipelineBody, &req); err != nil {
		return err
	}
	var p models.Pipeline
	if req.Template != 0 {
		if p, err = h.submitPipelineTemplate(c, req.Template); err != nil {
			return err
		}
	} else if p, err = h.newPipeline(c, req.PipelineRequest, req.Stages); err != nil {
		return err
	}
	h.Sched.Trigger()
	row, err := h.store.PipelineByID(c.Request().Context(), p.ID)
	if err != nil {
		return err
	}
	out, err := h.pipelineJSON(c, row)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, out)
}

// newPipeline submits a pipeline of the request's stages.
func (h *Handler) newPipeline(c echo.Context, req api.PipelineRequest, stages []json.RawMessage) (models.Pipeline, error) {
	if err := h.canSubmit(c, req.Project); err != nil {
		return models.Pipeline{}, err
	}
	np := models.NewPipeline{Project: req.Project, Name: req.Name}
	var err error
	if np.Owner, err = owner(handlers.Who(c), req.Owner); err != nil {
		return models.Pipeline{}, err
	}
	for i, raw := range stages {
		ns, err := h.newStage(c, raw)
		if err != nil {
			return models.Pipeline{}, stageError(i, err)
		}
		np.Stages = append(np.Stages, ns)
	}
	p, err := h.store.CreatePipeline(c.Request().Context(), np, h.Cfg.TaskLimits, h.Now())
	if err != nil {
		return models.Pipeline{}, handlers.APIError(http.StatusUnprocessableEntity, err)
	}
	return p, nil
}

// submitPipelineTemplate submits pipeline template id for the caller; the store refuses
// whoever is not a member of its project (403) and a task template (422).
func (h *Handler) submitPipelineTemplate(c echo.Context, id int64) (models.Pipeline, error) {
	p, err := h.store.SubmitPipelineTemplate(c.Request().Context(), id, handlers.Who(c).User.Name, h.Cfg.TaskLimits, h.Now())
	switch {
	case errors.Is(err, models.ErrForbidden):
		return models.Pipeline{}, handlers.APIError(http.StatusForbidden, err)
	case err != nil:
		return models.Pipeline{}, handlers.StoreError(err)
	}
	return p, nil
}

// newStage reads one stage of a submission: its task from its own fields, or from its
// template's with its own over them. A stage that says nothing of its data is ready unless
// it declares a data check or a checkable data location (its template's way).
func (h *Handler) newStage(c echo.Context, raw json.RawMessage) (models.NewStage, error) {
	var sr api.StageRequest
	if err := handlers.DecodeBody(raw, maxPipelineBody, &sr); err != nil {
		return models.NewStage{}, err
	}
	ns := models.NewStage{Name: sr.Name, After: sr.After, AfterEnded: sr.AfterEnded, Output: sr.Output}
	req := sr.TaskRequest
	var tpl models.TaskTemplate
	if req.Template != 0 {
		var err error
		if tpl, req, err = h.fromTemplate(c, req.Template, stageTaskFields(raw)); err != nil {
			return ns, err
		}
	} else if req.DataReady == nil {
		ready := req.DataCheck == nil && !models.TemplateBody{DataLocations: req.DataLocations}.WaitsForData()
		req.DataReady = &ready
	}
	ns.Task = newTask(req, "")
	ns.Task.TemplateID, ns.Task.TemplateVersion = tpl.ID, tpl.Version
	return ns, nil
}

// stageError names stage i in a refusal of its fields: "stages[i].field".
func stageError(i int, err error) error {
	he, ok := err.(*echo.HTTPError)
	if !ok {
		return err
	}
	if e, ok := he.Message.(api.Error); ok {
		e.Field = fmt.Sprintf("stages[%d].%s", i, e.Field)
		if e.Field == fmt.Sprintf("stages[%d].", i) {
			e.Field = fmt.Sprintf("stages[%d]", i)
		}
		he.Message = e
	}
	return he
}

// stageTaskFields is a stage's JSON less the fields that are the stage's own, not its task's.
func stageTaskFields(raw json.RawMessage) []byte {
	var m map[string]json.RawMessage
	json.Unmarshal(raw, &m) // decoded as a StageRequest already
	for _, k := range []string{"name", "after", "after_ended", "output"} {
		delete(m, k)
	}
	b, _ := json.Marshal(m) // raw JSON values; never fails
	return b
}
