package people

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
)

// meJSON is the caller as GET /api/v1/me shows them.
type meJSON struct {
	Name     string `json:"name"`
	Role     string `json:"role"`
	ReadOnly bool   `json:"read_only"`
}

// Me says who the caller is, so that scripts (kashi tasks) can pick their own tasks.
// GET /api/v1/me.
func (h *Handler) Me(c echo.Context) error {
	p := handlers.Who(c)
	return c.JSON(http.StatusOK, meJSON{Name: p.User.Name, Role: p.User.Role, ReadOnly: p.ReadOnly})
}
