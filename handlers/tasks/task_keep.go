package tasks

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
	"kashi/models"
	"kashi/scaler"
)

// auditTaskRelease is the audit action of a "release now" answer.
const auditTaskRelease = "task-release"

// keepJSON answers POST /api/v1/tasks/:id/keep.
type keepJSON struct {
	ID        int64     `json:"id"`
	KeptUntil time.Time `json:"kept_until"`
}

// TaskKeep answers an idle notice with "keep": the task keeps its cards for its policy's keep
// time (2 h by default). Past the keeps a day allows, or for a task holding no cards, it
// answers 409. POST /api/v1/tasks/:id/keep.
func (h *Handler) TaskKeep(c echo.Context) error {
	id, err := handlers.PathID(c)
	if err != nil {
		return err
	}
	if _, err := h.runnableTask(c, id); err != nil {
		return err
	}
	until, err := h.keepTask(c, id)
	if err != nil {
		return handlers.StoreError(err)
	}
	return c.JSON(http.StatusOK, keepJSON{ID: id, KeptUntil: until})
}

// TaskRelease answers an idle notice with "release now": the task is stopped and its cards
// reclaimed at once. A task holding no cards answers 409. POST /api/v1/tasks/:id/release.
func (h *Handler) TaskRelease(c echo.Context) error {
	id, err := handlers.PathID(c)
	if err != nil {
		return err
	}
	if _, err := h.runnableTask(c, id); err != nil {
		return err
	}
	if err := h.releaseTask(c, id); err != nil {
		return handlers.StoreError(err)
	}
	t, err := h.store.TaskByID(c.Request().Context(), id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, h.taskJSON(handlers.Locale(c), t))
}

// keepTask keeps the task's cards for its reclaim policy's keep time.
func (h *Handler) keepTask(c echo.Context, id int64) (time.Time, error) {
	pol, err := h.reclaimOf(c.Request().Context(), id)
	if err != nil {
		return time.Time{}, err
	}
	return h.store.KeepTask(c.Request().Context(), id, handlers.Who(c).User.Name, pol.KeepFor, pol.MaxKeepsPerDay, h.Loc(), h.Now())
}

// reclaimOf is the task's reclaim policy: its pool's under its project's override.
func (h *Handler) reclaimOf(ctx context.Context, id int64) (scaler.ReclaimPolicy, error) {
	s, err := h.store.TaskReclaimSettings(ctx, id)
	if err != nil {
		return scaler.ReclaimPolicy{}, err
	}
	return scaler.ReclaimOf(s), nil
}

// releaseTask stops the task and reclaims its cards, audits it and wakes the scheduler.
func (h *Handler) releaseTask(c echo.Context, id int64) error {
	ctx := c.Request().Context()
	who := handlers.Who(c).User.Name
	if err := h.store.ReclaimTask(ctx, id, models.ReleasedReason(who), h.Now()); err != nil {
		return err
	}
	t, err := h.store.TaskByID(ctx, id)
	if err != nil {
		return err
	}
	if err := h.store.Audit(ctx, h.Now(), who, auditTaskRelease, &t.ProjectID, "task "+t.Name, nil,
		map[string]any{"id": id, "state": models.TaskReclaimed}); err != nil {
		return err
	}
	h.Sched.Trigger()
	return nil
}
