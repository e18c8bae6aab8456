package handlers

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/models"
	"kashi/views"
)

// AccountPage shows the viewer's own account with the password form. GET /account.
func (h *People) AccountPage(c echo.Context) error {
	u := Who(c).User
	d := views.AccountData{Name: u.Name, Role: u.Role}
	if c.QueryParams().Has("changed") {
		d.Notice = views.PasswordChangedNotice(Locale(c))
	}
	return Render(c, http.StatusOK, views.Account(Locale(c), d))
}

// PasswordChange changes the viewer's own password when the current one matches: back to
// the account page with a notice, or the form with the refused field (422); two changes at
// once are 409. POST /account/password.
func (h *People) PasswordChange(c echo.Context) error {
	u := Who(c).User
	err := h.store.ChangePassword(c.Request().Context(), u.ID, c.FormValue("current"), c.FormValue("password"), h.now())
	var fe *models.FieldError
	switch {
	case err == nil:
		return c.Redirect(http.StatusSeeOther, "/account?changed=1")
	case errors.Is(err, models.ErrConflict):
		return storeError(err)
	case !errors.As(err, &fe):
		return err
	}
	d := views.AccountData{Name: u.Name, Role: u.Role, Field: fe.Field, Error: Invalid(Locale(c), fe)}
	return Render(c, http.StatusUnprocessableEntity, views.Account(Locale(c), d))
}
