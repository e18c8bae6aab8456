package tasks

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
	"kashi/views"
	tasksview "kashi/views/tasks"
)

// PipelinesPage lists the pipelines of the projects the viewer sees. GET /pipelines.
func (h *Handler) PipelinesPage(c echo.Context) error {
	return h.renderPipelines(c, http.StatusOK, tasksview.PipelineForm{Open: c.QueryParams().Has("new")})
}

// renderPipelines renders the pipelines list with status, its form for those who run some
// project's tasks holding form.
func (h *Handler) renderPipelines(c echo.Context, status int, form tasksview.PipelineForm) error {
	who := handlers.Who(c)
	rows, err := h.pipelineRows(c.Request().Context(), who, 200)
	if err != nil {
		return err
	}
	d := tasksview.PipelinesData{Pipelines: make([]api.Pipeline, len(rows)), Form: form, CanSubmit: who.Allows(handlers.Member) && !who.ReadOnly,
		CanTemplate: (who.Admin() || who.LeadsAny()) && !who.ReadOnly}
	for i, r := range rows {
		d.Pipelines[i] = pipelineFields(r)
		d.Pipelines[i].SubmittedAt = r.SubmittedAt.In(h.Loc())
	}
	return handlers.Render(c, status, tasksview.Pipelines(handlers.Locale(c), d))
}

// PipelinePage shows a pipeline: its stages as a layered graph with each one's state, cards,
// card-hours and cost, and its estimate beside what it took; for those who run its project's
// tasks, a failed one's rerun and a running one's cancel. ?notice=rerun and ?notice=cancelled
// confirm them. GET /pipelines/:id.
func (h *Handler) PipelinePage(c echo.Context) error {
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
	d := tasksview.PipelineData{P: out, Layers: tasksview.Layers(out.Stages), CanRun: handlers.Who(c).CanRun(p.ProjectID)}
	d.Notice = c.QueryParam("notice") // the page shows the notices it knows only
	return handlers.Render(c, http.StatusOK, tasksview.Pipeline(handlers.Locale(c), d))
}

// PipelineRerunForm reruns a failed pipeline from its failed stage and shows it again.
// POST /pipelines/:id/rerun.
func (h *Handler) PipelineRerunForm(c echo.Context) error {
	id, err := handlers.PathID(c)
	if err != nil {
		return err
	}
	if err := h.rerunPipeline(c, id); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, views.PipelineURL(id)+"?notice="+tasksview.NoticeRerun)
}

// PipelineCancelForm is the pipeline page's Cancel button: it cancels a running pipeline and
// shows it again. POST /pipelines/:id/cancel.
func (h *Handler) PipelineCancelForm(c echo.Context) error {
	id, err := handlers.PathID(c)
	if err != nil {
		return err
	}
	if err := h.cancelPipeline(c, id); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, views.PipelineURL(id)+"?notice="+tasksview.NoticeCancelled)
}
