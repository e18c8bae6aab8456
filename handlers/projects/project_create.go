package projects

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
)

// ProjectCreate adds a project (admins). POST /api/v1/projects {"name", "tags"}.
func (h *Handler) ProjectCreate(c echo.Context) error {
	var b api.NewProject
	if err := handlers.DecodeJSON(c, 4<<10, &b); err != nil {
		return err
	}
	p, err := h.store.CreateProject(c.Request().Context(), handlers.Who(c).User.Name, b.Name, b.Tags, h.Now())
	if err != nil {
		return handlers.APIError(http.StatusUnprocessableEntity, err)
	}
	return c.JSON(http.StatusCreated, api.Project{ID: p.ID, Name: p.Name, Tags: emptyIfNil(p.TagList()), Quotas: []api.Quota{}})
}

// ProjectArchive archives a project, or takes it back into use (admins). An archived project
// keeps its tasks, quotas and bills but takes no new tasks or quota requests.
// POST /api/v1/projects/:id/archive {"archived": true|false}.
func (h *Handler) ProjectArchive(c echo.Context) error {
	id, err := handlers.PathID(c)
	if err != nil {
		return err
	}
	var b api.ProjectArchive
	if err := handlers.DecodeJSON(c, 1<<10, &b); err != nil {
		return err
	}
	if b.Archived == nil {
		return handlers.BadRequest("archived", "archived must be true or false")
	}
	if err := h.store.SetProjectArchived(c.Request().Context(), handlers.Who(c).User.Name, id, *b.Archived, h.Now()); err != nil {
		return handlers.StoreError(err)
	}
	return c.NoContent(http.StatusNoContent)
}
