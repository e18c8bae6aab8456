package tasks

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
	"kashi/models"
	tasksview "kashi/views/tasks"
)

// NotificationsPage shows the tasks whose idle cards are about to be reclaimed and whose
// notices the caller may answer (their own, those of the projects they lead), with "keep"
// and "release now", then their notifications. GET /notifications.
func (h *Handler) NotificationsPage(c echo.Context) error {
	d, err := h.notificationsData(c)
	if err != nil {
		return err
	}
	l := handlers.Locale(c)
	q := c.QueryParams()
	if id, err := strconv.ParseInt(q.Get("kept"), 10, 64); err == nil {
		until, _ := strconv.ParseInt(q.Get("until"), 10, 64)
		d.Notice = tasksview.TaskKeptNotice(l, id, time.Unix(until, 0).In(h.Loc()))
	}
	if id, err := strconv.ParseInt(q.Get("released"), 10, 64); err == nil {
		d.Notice = tasksview.TaskReleasedNotice(l, id)
	}
	return handlers.Render(c, http.StatusOK, tasksview.Notifications(l, d))
}

// notificationsData builds the notifications page.
func (h *Handler) notificationsData(c echo.Context) (tasksview.NotificationsData, error) {
	ctx := c.Request().Context()
	u := handlers.Who(c).User
	now := h.Now().In(h.Loc())
	d := tasksview.NotificationsData{Now: now}
	notes, err := h.store.Notifications(ctx, u.ID, 100)
	if err != nil {
		return d, err
	}
	projects, err := h.store.NoteProjects(ctx, notes)
	if err != nil {
		return d, err
	}
	for _, n := range notes {
		v := notificationView(n)
		v.Project = projects[n.ID]
		d.Notes = append(d.Notes, v)
		if n.ReadAt == nil {
			d.Unread++
		}
	}
	idle, err := h.store.ReclaimNotices(ctx, u.Name)
	if err != nil {
		return d, err
	}
	today := now.Format(time.DateOnly)
	for _, t := range idle {
		pol, err := h.reclaimOf(ctx, t.ID)
		if err != nil {
			return d, err
		}
		v := tasksview.IdleTaskView{ID: t.ID, Name: t.Name, Project: t.Project, Owner: t.Owner, GPUs: t.GPUs, NoticeAt: t.NoticeAt,
			KeepsLeft: pol.MaxKeepsPerDay, KeepFor: pol.KeepFor}
		if t.KeptUntil != nil && t.KeptUntil.After(now) {
			v.KeptUntil = t.KeptUntil
		}
		if t.NoticeAt != nil {
			at := t.NoticeAt.Add(pol.Grace)
			v.ReclaimAt = &at
		}
		if v.KeptUntil == nil && v.NoticeAt == nil {
			continue // a keep that ran out, with no new notice yet
		}
		if t.KeepDay == today {
			v.KeepsLeft = max(pol.MaxKeepsPerDay-t.KeepsOnDay, 0)
		}
		d.Idle = append(d.Idle, v)
	}
	return d, nil
}

// NotificationsReadForm marks the caller's notifications read. POST /notifications/read.
func (h *Handler) NotificationsReadForm(c echo.Context) error {
	if err := h.store.MarkNotificationsRead(c.Request().Context(), handlers.Who(c).User.ID, h.Now()); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/notifications")
}

// TaskKeepForm is the "keep" button of an idle task. POST /notifications/tasks/:id/keep.
func (h *Handler) TaskKeepForm(c echo.Context) error {
	id, err := handlers.PathID(c)
	if err != nil {
		return err
	}
	t, err := h.runnableTask(c, id)
	if err != nil {
		return err
	}
	until, err := h.keepTask(c, id)
	if err != nil {
		return h.idleAnswerFailed(c, t, err)
	}
	return c.Redirect(http.StatusSeeOther, "/notifications?kept="+strconv.FormatInt(id, 10)+"&until="+strconv.FormatInt(until.Unix(), 10))
}

// TaskReleaseForm is the "release now" button of an idle task.
// POST /notifications/tasks/:id/release.
func (h *Handler) TaskReleaseForm(c echo.Context) error {
	id, err := handlers.PathID(c)
	if err != nil {
		return err
	}
	t, err := h.runnableTask(c, id)
	if err != nil {
		return err
	}
	if err := h.releaseTask(c, id); err != nil {
		return h.idleAnswerFailed(c, t, err)
	}
	return c.Redirect(http.StatusSeeOther, "/notifications?released="+strconv.FormatInt(id, 10))
}

// idleAnswerFailed shows the notifications page with why a keep or release was refused: 409
// when the task holds no cards any more or was kept as often as a day allows.
func (h *Handler) idleAnswerFailed(c echo.Context, t models.TaskRow, err error) error {
	if !errors.Is(err, models.ErrConflict) {
		return handlers.StoreError(err)
	}
	d, derr := h.notificationsData(c)
	if derr != nil {
		return derr
	}
	l := handlers.Locale(c)
	d.Error = tasksview.TaskGoneError(l, t.ID)
	if t.State == models.TaskRunning || t.State == models.TaskStarting {
		if t.StopState == "" {
			pol, err := h.reclaimOf(c.Request().Context(), t.ID)
			if err != nil {
				return err
			}
			d.Error = tasksview.KeepCapError(l, t.ID, pol.MaxKeepsPerDay)
		}
	}
	return handlers.Render(c, http.StatusConflict, tasksview.Notifications(l, d))
}
