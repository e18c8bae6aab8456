package handlers

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/models"
)

// MemberSet gives a user a role in a project, or removes them with role "" (the project's
// leads and admins). POST /api/v1/projects/:id/members {"user": …, "role": "lead"|"member"|""}.
func (h *Projects) MemberSet(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	var b struct {
		User string `json:"user"`
		Role string `json:"role"`
	}
	if err := decodeJSON(c, 4<<10, &b); err != nil {
		return err
	}
	ctx := c.Request().Context()
	if !Who(c).Leads(id) {
		if !Who(c).CanSee(id) {
			return storeError(models.ErrNotFound)
		}
		return forbidden("only the project's leads edit its members")
	}
	u, err := h.store.UserByName(ctx, b.User)
	if errors.Is(err, models.ErrNotFound) {
		return apiError(http.StatusUnprocessableEntity, models.Invalid("user", "unknown user"))
	}
	if err != nil {
		return err
	}
	before, err := h.store.Memberships(ctx, u.ID)
	if err != nil {
		return err
	}
	if err := h.store.SetMember(ctx, id, u.ID, b.Role); err != nil {
		return apiError(http.StatusUnprocessableEntity, err)
	}
	err = h.store.Audit(ctx, h.now(), Who(c).User.Name, models.AuditRoleChange, &id, "member "+u.Name,
		map[string]string{"role": before[id]}, map[string]string{"role": b.Role})
	if err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}
