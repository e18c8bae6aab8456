package people

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/api"
)

// Healthz answers 200 while the database answers. GET /healthz.
func (h *Handler) Healthz(c echo.Context) error {
	if err := h.store.Ping(c.Request().Context()); err != nil {
		return c.JSON(http.StatusServiceUnavailable, api.Health{Status: "database unavailable"})
	}
	return c.JSON(http.StatusOK, api.Health{Status: "ok"})
}
