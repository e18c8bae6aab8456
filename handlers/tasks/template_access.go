package tasks

import (
	"github.com/labstack/echo/v4"

	"kashi/handlers"
	"kashi/models"
)

// seenProject loads the project of the path's id when the caller sees it; another project
// is answered 404, as if it did not exist.
func (h *Handler) seenProject(c echo.Context) (models.Project, error) {
	id, err := handlers.PathID(c)
	if err != nil {
		return models.Project{}, err
	}
	if !handlers.Who(c).CanSee(id) {
		return models.Project{}, handlers.StoreError(models.ErrNotFound)
	}
	p, err := h.store.ProjectByID(c.Request().Context(), id)
	return p, handlers.StoreError(err)
}

// seenTemplate loads the path's template when the caller sees its project; another
// project's is 404.
func (h *Handler) seenTemplate(c echo.Context) (models.TaskTemplate, error) {
	id, err := handlers.PathID(c)
	if err != nil {
		return models.TaskTemplate{}, err
	}
	t, err := visibleTemplate(c, h.store, id)
	return t, handlers.StoreError(err)
}

// leads refuses a caller who sees the project but does not lead it.
func leads(c echo.Context, projectID int64) error {
	if !handlers.Who(c).Leads(projectID) {
		return handlers.Forbidden("only the project's leads change its templates and schedules")
	}
	return nil
}
