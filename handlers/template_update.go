package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/models"
)

// TemplateUpdate replaces a template's fields as a new version (the project's leads and
// admins). POST /api/v1/templates/:id.
func (h *Templates) TemplateUpdate(c echo.Context) error {
	t, err := h.seenTemplate(c)
	if err != nil {
		return err
	}
	if err := leads(c, t.ProjectID); err != nil {
		return err
	}
	req := newTemplateRequest()
	if err := decodeJSON(c, maxTemplateBody, &req); err != nil {
		return err
	}
	t, err = h.store.UpdateTemplate(c.Request().Context(), t.ID, models.NewTemplate{Name: req.Name,
		Description: req.Description, Body: sameJSON[models.TemplateBody](req.TemplateBody)}, Who(c).User.Name, h.cfg.TaskLimits, h.now())
	if err != nil {
		return storeError(err)
	}
	uses, err := h.store.TemplateUses(c.Request().Context(), t.ID)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, toTemplateJSON(t, uses))
}
