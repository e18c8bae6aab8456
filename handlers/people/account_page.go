package people

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
	"kashi/models"
	peopleview "kashi/views/people"
)

// AccountPage shows the viewer's own account with the password form. GET /account.
func (h *Handler) AccountPage(c echo.Context) error {
	u := handlers.Who(c).User
	d := peopleview.AccountData{Name: u.Name, Role: u.Role}
	if c.QueryParams().Has("changed") {
		d.Notice = peopleview.PasswordChangedNotice(handlers.Locale(c))
	}
	return handlers.Render(c, http.StatusOK, peopleview.Account(handlers.Locale(c), d))
}

// PasswordChange changes the viewer's own password when the current one matches: back to
// the account page with a notice, or the form with the refused field (422); two changes at
// once are 409. POST /account/password.
func (h *Handler) PasswordChange(c echo.Context) error {
	u := handlers.Who(c).User
	err := h.store.ChangePassword(c.Request().Context(), u.ID, c.FormValue("current"), c.FormValue("password"), h.Now())
	var fe *models.FieldError
	switch {
	case err == nil:
		return c.Redirect(http.StatusSeeOther, "/account?changed=1")
	case errors.Is(err, models.ErrConflict):
		return handlers.StoreError(err)
	case !errors.As(err, &fe):
		return err
	}
	d := peopleview.AccountData{Name: u.Name, Role: u.Role, Field: fe.Field, Error: handlers.Invalid(handlers.Locale(c), fe)}
	return handlers.Render(c, http.StatusUnprocessableEntity, peopleview.Account(handlers.Locale(c), d))
}
