package tasks

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
)

// TaskCancel cancels a task: at once while it waits, by stopping it while it runs.
// POST /api/v1/tasks/:id/cancel.
func (h *Handler) TaskCancel(c echo.Context) error {
	return h.changeTask(c, func(ctx context.Context, id int64) error {
		return h.store.CancelTask(ctx, id, handlers.Who(c).User.Name, h.Now())
	})
}

// TaskReady marks a waiting task's data ready; it joins the queue.
// POST /api/v1/tasks/:id/ready.
func (h *Handler) TaskReady(c echo.Context) error {
	return h.changeTask(c, func(ctx context.Context, id int64) error {
		return h.store.MarkTaskReady(ctx, id, "data marked ready", h.Now())
	})
}

// changeTask applies change to the task :id the caller runs, wakes the scheduler and answers
// with the task as it is now.
func (h *Handler) changeTask(c echo.Context, change func(ctx context.Context, id int64) error) error {
	id, err := handlers.PathID(c)
	if err != nil {
		return err
	}
	if _, err := h.runnableTask(c, id); err != nil {
		return err
	}
	ctx := c.Request().Context()
	if err := change(ctx, id); err != nil {
		return handlers.StoreError(err)
	}
	h.Sched.Trigger()
	t, err := h.store.TaskByID(ctx, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, h.taskJSON(handlers.Locale(c), t))
}
