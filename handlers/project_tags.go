package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/models"
)

// ProjectTags replaces a project's tags, by which bills are grouped (the project's leads and
// admins). POST /api/v1/projects/:id/tags {"tags": ["cv", "paper-2026"]}.
func (h *Projects) ProjectTags(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	var b struct {
		Tags []string `json:"tags"`
	}
	if err := decodeJSON(c, 4<<10, &b); err != nil {
		return err
	}
	if !Who(c).Leads(id) {
		if !Who(c).CanSee(id) {
			return storeError(models.ErrNotFound)
		}
		return forbidden("only the project's leads set its tags")
	}
	if err := h.store.SetProjectTags(c.Request().Context(), Who(c).User.Name, id, b.Tags, h.now()); err != nil {
		return storeError(err)
	}
	return c.NoContent(http.StatusNoContent)
}
