package tasks

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
)

// TrialCreate starts a trial: its task (from_task's, or task) run at each size on each spec
// for bound_s, each run a task of the caller's in the short lane when the bound fits it.
// POST /api/v1/trials.
func (h *Handler) TrialCreate(c echo.Context) error {
	var req api.TrialRequest
	if err := handlers.DecodeJSON(c, maxTaskBody, &req); err != nil {
		return err
	}
	nt, err := h.trialOf(c, req)
	if err != nil {
		return err
	}
	tr, _, err := h.store.CreateTrial(c.Request().Context(), nt, h.Cfg.TaskLimits, h.Now())
	if err != nil {
		return handlers.APIError(http.StatusUnprocessableEntity, err)
	}
	h.Sched.Trigger()
	out, err := h.trialJSON(c.Request().Context(), tr, h.Now())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, out)
}

// TrialShow is a trial with its runs' figures and its proposal. GET /api/v1/trials/:id.
func (h *Handler) TrialShow(c echo.Context) error {
	id, err := handlers.PathID(c)
	if err != nil {
		return err
	}
	tr, err := h.visibleTrial(c, id)
	if err != nil {
		return err
	}
	out, err := h.trialJSON(c.Request().Context(), tr, h.Now())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}
