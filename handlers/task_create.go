package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// maxTaskBody bounds a task submission.
const maxTaskBody = 256 << 10

// TaskCreate submits a task. A repeated Idempotency-Key returns the first task with 200
// instead of 201. POST /api/v1/tasks.
func (h *Handler) TaskCreate(c echo.Context) error {
	var req taskRequest
	if err := decodeJSON(c, maxTaskBody, &req); err != nil {
		return err
	}
	ctx := c.Request().Context()
	t, created, err := h.store.CreateTask(ctx, req.newTask(c.Request().Header.Get("Idempotency-Key")), h.cfg.TaskLimits, h.now())
	if err != nil {
		return apiError(http.StatusUnprocessableEntity, err)
	}
	row, err := h.store.TaskByID(ctx, t.ID)
	if err != nil {
		return err
	}
	if !created {
		return c.JSON(http.StatusOK, toTaskJSON(row))
	}
	h.sched.Trigger()
	return c.JSON(http.StatusCreated, toTaskJSON(row))
}
