package tasks

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
)

// PipelineShow returns a pipeline with its stages. GET /api/v1/pipelines/:id.
func (h *Handler) PipelineShow(c echo.Context) error {
	id, err := handlers.PathID(c)
	if err != nil {
		return err
	}
	p, err := h.visiblePipeline(c, id)
	if err != nil {
		return err
	}
	out, err := h.pipelineJSON(c, p)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// PipelineList lists the pipelines of the caller's projects (all for admins), newest
// first, without their stages. GET /api/v1/pipelines?limit=.
func (h *Handler) PipelineList(c echo.Context) error {
	limit := 100
	if v := c.QueryParam("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 500 {
			return handlers.BadRequest("limit", "limit must be between 1 and 500")
		}
		limit = n
	}
	rows, err := h.pipelineRows(c.Request().Context(), handlers.Who(c), limit)
	if err != nil {
		return err
	}
	out := make([]api.Pipeline, len(rows))
	for i, r := range rows {
		out[i] = pipelineFields(r)
	}
	return c.JSON(http.StatusOK, out)
}

// PipelineRerun runs a failed pipeline again from the stages that did not succeed; 409 when
// it did not fail. POST /api/v1/pipelines/:id/rerun.
func (h *Handler) PipelineRerun(c echo.Context) error {
	id, err := handlers.PathID(c)
	if err != nil {
		return err
	}
	if err := h.rerunPipeline(c, id); err != nil {
		return err
	}
	p, err := h.visiblePipeline(c, id)
	if err != nil {
		return err
	}
	out, err := h.pipelineJSON(c, p)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// rerunPipeline reruns a pipeline the caller may see and runs tasks of, and wakes the queue.
func (h *Handler) rerunPipeline(c echo.Context, id int64) error {
	p, err := h.visiblePipeline(c, id)
	if err != nil {
		return err
	}
	if !handlers.Who(c).CanRun(p.ProjectID) {
		return handlers.Forbidden("you do not run tasks of project " + p.Project)
	}
	if _, err := h.store.RerunPipeline(c.Request().Context(), id, h.Cfg.TaskLimits, h.Now()); err != nil {
		return handlers.StoreError(err)
	}
	h.Sched.Trigger()
	return nil
}

// PipelineCancel cancels a running pipeline: its waiting stages are skipped and its stages'
// tasks cancelled, as a task's cancel would (the same roles: one who runs the project's
// tasks); 409 when it is not running. POST /api/v1/pipelines/:id/cancel.
func (h *Handler) PipelineCancel(c echo.Context) error {
	id, err := handlers.PathID(c)
	if err != nil {
		return err
	}
	if err := h.cancelPipeline(c, id); err != nil {
		return err
	}
	p, err := h.visiblePipeline(c, id)
	if err != nil {
		return err
	}
	out, err := h.pipelineJSON(c, p)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// cancelPipeline cancels a pipeline the caller may see and runs tasks of, and wakes the queue.
func (h *Handler) cancelPipeline(c echo.Context, id int64) error {
	p, err := h.visiblePipeline(c, id)
	if err != nil {
		return err
	}
	who := handlers.Who(c)
	if !who.CanRun(p.ProjectID) {
		return handlers.Forbidden("you do not run tasks of project " + p.Project)
	}
	if _, err := h.store.CancelPipeline(c.Request().Context(), id, who.User.Name, h.Now()); err != nil {
		return handlers.StoreError(err)
	}
	h.Sched.Trigger()
	return nil
}
