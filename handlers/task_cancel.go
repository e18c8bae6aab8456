package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// TaskCancel cancels a task: at once while it waits, by stopping it while it runs.
// POST /api/v1/tasks/:id/cancel.
func (h *Handler) TaskCancel(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	if _, err := h.runnableTask(c, id); err != nil {
		return err
	}
	ctx := c.Request().Context()
	if err := h.store.CancelTask(ctx, id, Who(c).User.Name, h.now()); err != nil {
		return storeError(err)
	}
	h.sched.Trigger()
	t, err := h.store.TaskByID(ctx, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, toTaskJSON(t))
}
