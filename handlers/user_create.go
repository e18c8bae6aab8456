package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/models"
)

// UserCreate adds a user (admins). POST /api/v1/users {"name", "password", "role"}.
func (h *People) UserCreate(c echo.Context) error {
	var b struct {
		Name     string `json:"name"`
		Password string `json:"password"`
		Role     string `json:"role"`
	}
	if err := decodeJSON(c, 4<<10, &b); err != nil {
		return err
	}
	ctx := c.Request().Context()
	u, err := h.store.CreateUser(ctx, b.Name, b.Password, b.Role, h.now())
	if err != nil {
		return apiError(http.StatusUnprocessableEntity, err)
	}
	err = h.store.Audit(ctx, h.now(), Who(c).User.Name, models.AuditUserCreate, nil, "user "+u.Name, nil,
		map[string]string{"name": u.Name, "role": u.Role})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, map[string]any{"id": u.ID, "name": u.Name, "role": u.Role})
}
