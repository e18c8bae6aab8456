package tasks

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
	"kashi/models"
	"kashi/scaler"
)

// auditTaskRelease is the audit action of a "release now" answer.
const auditTaskRelease = "task-release"

// TaskKeep answers an idle notice with "keep": the task keeps its cards for its policy's keep
// time (2 h by default). Its owner, its project's leads and admins may answer; anyone else
// gets 403. Past the keeps a day allows, or for a task holding no cards, it answers 409.
// POST /api/v1/tasks/:id/keep.
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
	return c.JSON(http.StatusOK, api.Kept{ID: id, KeptUntil: until})
}

// TaskRelease answers an idle notice with "release now": the task is stopped and its cards
// reclaimed at once. Its owner, its project's leads and admins may answer; anyone else gets
// 403. A task holding no cards answers 409. POST /api/v1/tasks/:id/release.
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

// keepTask keeps the task's cards for its reclaim policy's keep time, when the caller may
// answer its idle notices (the store decides: answerForbidden).
func (h *Handler) keepTask(c echo.Context, id int64) (time.Time, error) {
	pol, err := h.reclaimOf(c.Request().Context(), id)
	if err != nil {
		return time.Time{}, err
	}
	until, err := h.store.KeepTask(c.Request().Context(), id, handlers.Who(c).User.Name, pol.KeepFor, pol.MaxKeepsPerDay, h.Loc(), h.Now())
	return until, answerForbidden(err)
}

// answerForbidden makes the store's refusal of someone who may not answer a task's idle
// notices a 403; other errors stay as they are.
func answerForbidden(err error) error {
	if errors.Is(err, models.ErrForbidden) {
		return handlers.Forbidden("only the task's owner, its project's leads and admins answer its idle notices")
	}
	return err
}

// reclaimOf is the task's reclaim policy: its pool's under its project's override.
func (h *Handler) reclaimOf(ctx context.Context, id int64) (scaler.ReclaimPolicy, error) {
	s, err := h.store.TaskReclaimSettings(ctx, id)
	if err != nil {
		return scaler.ReclaimPolicy{}, err
	}
	return scaler.ReclaimOf(s), nil
}

// releaseTask stops the task and reclaims its cards when the caller may answer its idle
// notices (the store decides: answerForbidden), audits it and wakes the scheduler.
func (h *Handler) releaseTask(c echo.Context, id int64) error {
	ctx := c.Request().Context()
	who := handlers.Who(c).User.Name
	if err := h.store.ReleaseTask(ctx, id, who, h.Now()); err != nil {
		return answerForbidden(err)
	}
	t, err := h.store.TaskByID(ctx, id)
	if err != nil {
		return err
	}
	if err := h.store.Audit(ctx, h.Now(), who, auditTaskRelease, &t.ProjectID, "task "+t.Name, nil,
		map[string]any{"id": id, "state": models.EndReleased}); err != nil {
		return err
	}
	h.Sched.Trigger()
	return nil
}
