package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// TaskReady marks a waiting task's data ready; it joins the queue.
// POST /api/v1/tasks/:id/ready.
func (h *Handler) TaskReady(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	if _, err := h.runnableTask(c, id); err != nil {
		return err
	}
	ctx := c.Request().Context()
	if err := h.store.MarkTaskReady(ctx, id, "data marked ready", h.now()); err != nil {
		return storeError(err)
	}
	h.sched.Trigger()
	t, err := h.store.TaskByID(ctx, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, toTaskJSON(t))
}
