package tasks

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
)

// notificationJSON is one in-app notification.
type notificationJSON struct {
	Kind      string     `json:"kind"`
	Message   string     `json:"message"`
	CreatedAt time.Time  `json:"created_at"`
	ReadAt    *time.Time `json:"read_at"`
}

// NotificationList lists the caller's notifications, newest first.
// GET /api/v1/notifications.
func (h *Handler) NotificationList(c echo.Context) error {
	notes, err := h.store.Notifications(c.Request().Context(), handlers.Who(c).User.ID, 100)
	if err != nil {
		return err
	}
	out := make([]notificationJSON, len(notes))
	for i, n := range notes {
		out[i] = notificationJSON{Kind: n.Kind, Message: n.Message, CreatedAt: n.CreatedAt, ReadAt: n.ReadAt}
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
