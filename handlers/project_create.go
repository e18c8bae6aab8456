package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// ProjectCreate adds a project (admins). POST /api/v1/projects {"name", "tags"}.
func (h *Projects) ProjectCreate(c echo.Context) error {
	var b struct {
		Name string   `json:"name"`
		Tags []string `json:"tags"`
	}
	if err := decodeJSON(c, 4<<10, &b); err != nil {
		return err
	}
	p, err := h.store.CreateProject(c.Request().Context(), Who(c).User.Name, b.Name, b.Tags, h.now())
	if err != nil {
		return apiError(http.StatusUnprocessableEntity, err)
	}
	return c.JSON(http.StatusCreated, projectJSON{ID: p.ID, Name: p.Name, Tags: emptyIfNil(p.TagList()), Quotas: []quotaJSON{}})
}

// ProjectArchive archives a project, or takes it back into use (admins). An archived project
// keeps its tasks, quotas and bills but takes no new tasks or quota requests.
// POST /api/v1/projects/:id/archive {"archived": true|false}.
func (h *Projects) ProjectArchive(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	var b struct {
		Archived *bool `json:"archived"`
	}
	if err := decodeJSON(c, 1<<10, &b); err != nil {
		return err
	}
	if b.Archived == nil {
		return badRequest("archived", "archived must be true or false")
	}
	if err := h.store.SetProjectArchived(c.Request().Context(), Who(c).User.Name, id, *b.Archived, h.now()); err != nil {
		return storeError(err)
	}
	return c.NoContent(http.StatusNoContent)
}
