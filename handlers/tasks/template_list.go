package tasks

import (
	"kashi/api"
	"net/http"

	"github.com/labstack/echo/v4"
)

// TemplateList lists a project's templates with their uses (the project's members).
// GET /api/v1/projects/:id/templates.
func (h *Handler) TemplateList(c echo.Context) error {
	p, err := h.seenProject(c)
	if err != nil {
		return err
	}
	rows, err := h.store.Templates(c.Request().Context(), p.ID)
	if err != nil {
		return err
	}
	out := make([]api.Template, 0, len(rows))
	for _, r := range rows {
		out = append(out, toTemplateJSON(r.TaskTemplate, r.Uses))
	}
	return c.JSON(http.StatusOK, out)
}
