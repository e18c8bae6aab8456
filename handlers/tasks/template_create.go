package tasks

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
	"kashi/models"
)

// TemplateCreate adds a template to a project (its leads and admins); its fields are
// checked as a task of the project would be. POST /api/v1/projects/:id/templates.
func (h *Handler) TemplateCreate(c echo.Context) error {
	p, err := h.seenProject(c)
	if err != nil {
		return err
	}
	if err := leads(c, p.ID); err != nil {
		return err
	}
	req := newTemplateRequest()
	if err := handlers.DecodeJSON(c, maxTemplateBody, &req); err != nil {
		return err
	}
	stageDefaults(&req.TemplateBody)
	t, err := h.store.CreateTemplate(c.Request().Context(), models.NewTemplate{ProjectID: p.ID, Name: req.Name,
		Description: req.Description, Body: sameJSON[models.TemplateBody](req.TemplateBody)}, handlers.Who(c).User.Name, h.Cfg.TaskLimits, h.Now())
	if err != nil {
		return handlers.StoreError(err)
	}
	return c.JSON(http.StatusCreated, toTemplateJSON(t, 0))
}
