package people

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
)

// UserUnixAccountSet sets the Unix account a user's tasks run as on the nodes (admins).
// POST /api/v1/users/:name/unix-account {"unix_account"}.
func (h *Handler) UserUnixAccountSet(c echo.Context) error {
	var req api.UnixAccountRequest
	if err := handlers.DecodeJSON(c, 4<<10, &req); err != nil {
		return err
	}
	name := c.Param("name")
	if err := h.store.SetUnixAccount(c.Request().Context(), handlers.Who(c).User.Name, name, req.UnixAccount, h.Now()); err != nil {
		return handlers.StoreError(err)
	}
	return c.JSON(http.StatusOK, api.UnixAccount{Name: name, UnixAccount: req.UnixAccount})
}

// UserFormUnixAccount sets a user's Unix account from the people page (admins).
// POST /people/:name/unix-account.
func (h *Handler) UserFormUnixAccount(c echo.Context) error {
	name := c.Param("name")
	err := h.store.SetUnixAccount(c.Request().Context(), handlers.Who(c).User.Name, name, c.FormValue("unix_account"), h.Now())
	return h.userActionDone(c, name, "account", err)
}
