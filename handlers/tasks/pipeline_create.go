package tasks

import (
	"encoding/json"
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
// starts from the template's fields, as a task does. POST /api/v1/pipelines.
func (h *Handler) PipelineCreate(c echo.Context) error {
	body, err := handlers.ReadJSON(c, maxPipelineBody)
	if err != nil {
		return err
	}
	var req struct {
		api.PipelineRequest
		Stages []json.RawMessage `json:"stages"`
	}
	if err := handlers.DecodeBody(body, maxPipelineBody, &req); err != nil {
		return err
	}
	if err := h.canSubmit(c, req.Project); err != nil {
		return err
	}
	who := handlers.Who(c)
	np := models.NewPipeline{Project: req.Project, Name: req.Name}
	if np.Owner, err = owner(who, req.Owner); err != nil {
		return err
	}
	for i, raw := range req.Stages {
		ns, err := h.newStage(c, raw)
		if err != nil {
			return stageError(i, err)
		}
		np.Stages = append(np.Stages, ns)
	}
	p, err := h.store.CreatePipeline(c.Request().Context(), np, h.Cfg.TaskLimits, h.Now())
	if err != nil {
		return handlers.APIError(http.StatusUnprocessableEntity, err)
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
