package tasks

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
)

// NotificationList lists the caller's notifications, newest first.
// GET /api/v1/notifications.
func (h *Handler) NotificationList(c echo.Context) error {
	notes, err := h.store.Notifications(c.Request().Context(), handlers.Who(c).User.ID, 100)
	if err != nil {
		return err
	}
	out := make([]api.Notification, len(notes))
	for i, n := range notes {
		out[i] = api.Notification{Kind: n.Kind, Message: n.Message, CreatedAt: n.CreatedAt, ReadAt: n.ReadAt}
	}
	return c.JSON(http.StatusOK, out)
}

// NotificationsRead marks the caller's notifications read. POST /api/v1/notifications/read.
func (h *Handler) NotificationsRead(c echo.Context) error {
	if err := h.store.MarkNotificationsRead(c.Request().Context(), handlers.Who(c).User.ID, h.Now()); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}
