package projects

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
)

// ProjectTags replaces a project's tags, by which bills are grouped (the project's leads and
// admins). POST /api/v1/projects/:id/tags {"tags": ["cv", "paper-2026"]}.
func (h *Handler) ProjectTags(c echo.Context) error {
	id, err := handlers.PathID(c)
	if err != nil {
		return err
	}
	var b api.ProjectTags
	if err := handlers.DecodeJSON(c, 4<<10, &b); err != nil {
		return err
	}
	if err := h.setTags(c, id, b.Tags); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// setTags checks the caller leads project id and replaces its tags.
func (h *Handler) setTags(c echo.Context, id int64, tags []string) error {
	if err := leadsProject(c, id, "only the project's leads set its tags"); err != nil {
		return err
	}
	if err := h.store.SetProjectTags(c.Request().Context(), handlers.Who(c).User.Name, id, tags, h.Now()); err != nil {
		return handlers.StoreError(err)
	}
	return nil
}
