package tasks

import (
	"cmp"
	"math"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
	"kashi/models"
	"kashi/views"
)

// submitFull submits trial id's full run at its proposal, or at the spec and cards asked:
// 409 before the trial has a proposal or once it has its full run. Its estimate is the
// proposal's card-hours (none when the full run's output is unknown or it is not the
// proposal's size); its runtime limit twice the proposal's hours, or its lane's.
func (h *Handler) submitFull(c echo.Context, id int64, ask api.TrialFullRequest) (models.Task, error) {
	tr, err := h.visibleTrial(c, id)
	if err != nil {
		return models.Task{}, err
	}
	if !handlers.Who(c).CanRun(tr.ProjectID) {
		return models.Task{}, handlers.Forbidden("you do not run tasks of this trial's project")
	}
	ctx := c.Request().Context()
	j, err := h.trialJSON(ctx, tr, h.Now())
	if err != nil {
		return models.Task{}, err
	}
	p := j.Proposal
	if p == nil {
		return models.Task{}, echo.NewHTTPError(http.StatusConflict, api.Error{Error: "the trial has no proposal yet: its runs have not all ended with output"})
	}
	fr := models.FullRun{Spec: cmp.Or(ask.Spec, p.Spec), GPUs: cmp.Or(ask.GPUs, p.GPUs), By: handlers.Who(c).User.Name}
	if fr.Spec == p.Spec && fr.GPUs == p.GPUs && p.CardS > 0 {
		fr.EstGPUHours = math.Ceil(float64(p.CardS)/36) / 100
		fr.MaxRuntime = min(2*time.Duration(p.CardS/int64(p.GPUs))*time.Second, h.Cfg.TaskLimits.LongMaxRuntime)
	}
	t, err := h.store.SubmitTrialFull(ctx, id, fr, h.Cfg.TaskLimits, h.Now())
	if err != nil {
		return models.Task{}, handlers.StoreError(err)
	}
	h.Sched.Trigger()
	return t, nil
}

// TrialFull submits a trial's full run. POST /api/v1/trials/:id/full.
func (h *Handler) TrialFull(c echo.Context) error {
	id, err := handlers.PathID(c)
	if err != nil {
		return err
	}
	var ask api.TrialFullRequest
	if c.Request().ContentLength != 0 {
		if err := handlers.DecodeJSON(c, 4<<10, &ask); err != nil {
			return err
		}
	}
	t, err := h.submitFull(c, id, ask)
	if err != nil {
		return err
	}
	row, err := h.visibleTask(c, t.ID)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, h.taskJSON(handlers.Locale(c), row))
}

// TrialFullForm is the trial page's "run at full size": the proposal submitted, then the
// new task's page (303). POST /trials/:id/full.
func (h *Handler) TrialFullForm(c echo.Context) error {
	id, err := handlers.PathID(c)
	if err != nil {
		return err
	}
	t, err := h.submitFull(c, id, api.TrialFullRequest{})
	if err != nil {
		if msg, ok := handlers.FieldProblem(handlers.Locale(c), err); ok {
			return handlers.PageError(http.StatusUnprocessableEntity, msg)
		}
		return err
	}
	return c.Redirect(http.StatusSeeOther, views.TaskURL(t.ID))
}
