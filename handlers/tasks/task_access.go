package tasks

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
	"kashi/models"
)

// canSubmit checks that the caller may run tasks of the named project. An unknown project is
// left to the store, which names the field.
func (h *Handler) canSubmit(c echo.Context, project string) error {
	if handlers.Who(c).CanRun(0) { // an admin with a writing token runs tasks of every project
		return nil
	}
	p, err := h.store.ProjectByName(c.Request().Context(), project)
	if errors.Is(err, models.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if !handlers.Who(c).CanRun(p.ID) {
		return echo.NewHTTPError(http.StatusForbidden, api.Error{Error: "you do not run tasks of project " + p.Name, Field: "project"})
	}
	return nil
}

// visibleTask loads a task the caller may see; one of another project is answered 404, as if
// it did not exist, so ids cannot be probed.
func (h *Handler) visibleTask(c echo.Context, id int64) (models.TaskRow, error) {
	t, err := h.store.TaskByID(c.Request().Context(), id)
	if err != nil {
		return t, handlers.StoreError(err)
	}
	if !handlers.Who(c).CanSee(t.ProjectID) {
		return t, handlers.StoreError(models.ErrNotFound)
	}
	return t, nil
}

// runnableTask loads a task the caller may control (cancel, mark ready).
func (h *Handler) runnableTask(c echo.Context, id int64) (models.TaskRow, error) {
	t, err := h.visibleTask(c, id)
	if err != nil {
		return t, err
	}
	if !handlers.Who(c).CanRun(t.ProjectID) {
		return t, handlers.Forbidden("you do not run tasks of project " + t.Project)
	}
	return t, nil
}
