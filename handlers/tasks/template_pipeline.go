package tasks

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"
)

// TemplateFormPipeline submits a pipeline template's pipeline for the caller, from its page,
// and opens the pipeline's page; the store refuses whoever is not a member of its project
// (403). POST /templates/:id/pipeline.
func (h *Handler) TemplateFormPipeline(c echo.Context) error {
	t, err := h.seenTemplate(c)
	if err != nil {
		return err
	}
	p, err := h.submitPipelineTemplate(c, t.ID)
	if err != nil {
		return err
	}
	h.Sched.Trigger()
	return c.Redirect(http.StatusSeeOther, "/pipelines/"+strconv.FormatInt(p.ID, 10))
}
