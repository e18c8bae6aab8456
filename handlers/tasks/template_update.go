package tasks

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
	"kashi/models"
)

// TemplateUpdate replaces a template's fields as a new version (the project's leads and
// admins). POST /api/v1/templates/:id.
func (h *Handler) TemplateUpdate(c echo.Context) error {
	t, err := h.seenTemplate(c)
	if err != nil {
		return err
	}
	if err := leads(c, t.ProjectID); err != nil {
		return err
	}
	req := newTemplateRequest()
	if err := handlers.DecodeJSON(c, maxTemplateBody, &req); err != nil {
		return err
	}
	stageDefaults(&req.TemplateBody)
	t, err = h.store.UpdateTemplate(c.Request().Context(), t.ID, models.NewTemplate{Name: req.Name,
		Description: req.Description, Body: sameJSON[models.TemplateBody](req.TemplateBody)}, handlers.Who(c).User.Name, h.Cfg.TaskLimits, h.Now())
	if err != nil {
		return handlers.StoreError(err)
	}
	uses, err := h.store.TemplateUses(c.Request().Context(), t.ID)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, toTemplateJSON(t, uses))
}
