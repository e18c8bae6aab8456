package handlers

import (
	"github.com/labstack/echo/v4"

	"kashi/models"
)

// seenProject loads the project of the path's id when the caller sees it; another project
// is answered 404, as if it did not exist.
func (h *Tasks) seenProject(c echo.Context) (models.Project, error) {
	id, err := pathID(c)
	if err != nil {
		return models.Project{}, err
	}
	if !Who(c).CanSee(id) {
		return models.Project{}, storeError(models.ErrNotFound)
	}
	p, err := h.store.ProjectByID(c.Request().Context(), id)
	return p, storeError(err)
}

// seenTemplate loads the path's template when the caller sees its project; another
// project's is 404.
func (h *Tasks) seenTemplate(c echo.Context) (models.TaskTemplate, error) {
	id, err := pathID(c)
	if err != nil {
		return models.TaskTemplate{}, err
	}
	t, err := visibleTemplate(c, h.store, id)
	return t, storeError(err)
}

// leads refuses a caller who sees the project but does not lead it.
func leads(c echo.Context, projectID int64) error {
	if !Who(c).Leads(projectID) {
		return forbidden("only the project's leads change its templates and schedules")
	}
	return nil
}
