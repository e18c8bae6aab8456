package projects

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
	"kashi/models"
)

// MemberSet gives a user a role in a project, or removes them with role "" (the project's
// leads and admins). POST /api/v1/projects/:id/members {"user": …, "role": "lead"|"member"|""}.
func (h *Handler) MemberSet(c echo.Context) error {
	id, err := handlers.PathID(c)
	if err != nil {
		return err
	}
	var b api.Membership
	if err := handlers.DecodeJSON(c, 4<<10, &b); err != nil {
		return err
	}
	if err := h.setMember(c, id, b.User, b.Role); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// setMember checks the caller leads project id and sets the user's role in it, recording the
// change in the audit log.
func (h *Handler) setMember(c echo.Context, id int64, user, role string) error {
	if err := leadsProject(c, id, "only the project's leads edit its members"); err != nil {
		return err
	}
	ctx := c.Request().Context()
	u, err := h.store.UserByName(ctx, user)
	if errors.Is(err, models.ErrNotFound) {
		return handlers.APIError(http.StatusUnprocessableEntity, models.Invalid("user", "unknown user"))
	}
	if err != nil {
		return err
	}
	before, err := h.store.Memberships(ctx, u.ID)
	if err != nil {
		return err
	}
	if err := h.store.SetMember(ctx, id, u.ID, role); err != nil {
		return handlers.APIError(http.StatusUnprocessableEntity, err)
	}
	return h.store.Audit(ctx, h.Now(), handlers.Who(c).User.Name, models.AuditRoleChange, &id, "member "+u.Name,
		map[string]string{"role": before[id]}, map[string]string{"role": role})
}

// leadsProject refuses a caller who does not lead project id: 404 when they cannot see it,
// else 403 with msg.
func leadsProject(c echo.Context, id int64, msg string) error {
	if handlers.Who(c).Leads(id) {
		return nil
	}
	if !handlers.Who(c).CanSee(id) {
		return handlers.StoreError(models.ErrNotFound)
	}
	return handlers.Forbidden(msg)
}
