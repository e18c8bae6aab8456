package people

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
	"kashi/models"
)

// UserCreate adds a user (admins). POST /api/v1/users {"name", "password", "role"}.
func (h *Handler) UserCreate(c echo.Context) error {
	var b api.NewUser
	if err := handlers.DecodeJSON(c, 4<<10, &b); err != nil {
		return err
	}
	u, err := h.createUser(c, b.Name, b.Password, b.Role)
	if err != nil {
		return handlers.APIError(http.StatusUnprocessableEntity, err)
	}
	return c.JSON(http.StatusCreated, api.User{ID: u.ID, Name: u.Name, Role: u.Role})
}

// createUser adds a user and records it in the audit log; the API and the people page
// share it.
func (h *Handler) createUser(c echo.Context, name, password, role string) (models.User, error) {
	ctx := c.Request().Context()
	u, err := h.store.CreateUser(ctx, name, password, role, h.Now())
	if err != nil {
		return u, err
	}
	return u, h.store.Audit(ctx, h.Now(), handlers.Who(c).User.Name, models.AuditUserCreate, nil, "user "+u.Name, nil,
		map[string]string{"name": u.Name, "role": u.Role})
}
