package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/api"
)

// Me says who the caller is, so that scripts (kashi tasks) can pick their own tasks.
// GET /api/v1/me.
func (h *People) Me(c echo.Context) error {
	p := Who(c)
	return c.JSON(http.StatusOK, api.Me{Name: p.User.Name, Role: p.User.Role, ReadOnly: p.ReadOnly})
}
