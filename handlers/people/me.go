package people

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
)

// Me says who the caller is, so that scripts (kashi tasks) can pick their own tasks.
// GET /api/v1/me.
func (h *Handler) Me(c echo.Context) error {
	p := handlers.Who(c)
	return c.JSON(http.StatusOK, api.Me{Name: p.User.Name, Role: p.User.Role, ReadOnly: p.ReadOnly})
}
