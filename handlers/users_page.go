package handlers

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"

	"kashi/models"
	"kashi/views"
)

// UsersPage lists every user with the add form and per-user actions (admins). ?created=,
// ?disabled=, ?enabled= and ?reset= name the user an action just changed. GET /people.
func (h *People) UsersPage(c echo.Context) error {
	d, err := h.usersData(c)
	if err != nil {
		return err
	}
	q := c.QueryParams()
	for _, what := range []string{"created", "disabled", "enabled", "reset"} {
		if q.Has(what) {
			d.Notice = views.UserNotice(Locale(c), what, q.Get(what))
		}
	}
	return Render(c, http.StatusOK, views.Users(Locale(c), d))
}

// usersData reads the people page.
func (h *People) usersData(c echo.Context) (views.UsersData, error) {
	us, err := h.store.Users(c.Request().Context())
	if err != nil {
		return views.UsersData{}, err
	}
	d := views.UsersData{Self: Who(c).User.Name, Form: views.UserForm{Role: models.RoleUser}}
	for _, u := range us {
		d.Users = append(d.Users, views.UserRow{Name: u.Name, Role: u.Role, Disabled: u.Disabled, CreatedAt: u.CreatedAt.In(h.loc())})
	}
	return d, nil
}

// UserFormCreate is the add-user form: back to the list with a notice, or the page with the
// refused field (422). POST /people.
func (h *People) UserFormCreate(c echo.Context) error {
	f := views.UserForm{Name: c.FormValue("name"), Role: c.FormValue("role")}
	_, err := h.createUser(c, f.Name, c.FormValue("password"), f.Role)
	var fe *models.FieldError
	switch {
	case err == nil:
		return c.Redirect(http.StatusSeeOther, "/people?created="+url.QueryEscape(f.Name))
	case !errors.As(err, &fe):
		return err
	}
	d, err := h.usersData(c)
	if err != nil {
		return err
	}
	f.Field, f.Error = fe.Field, Invalid(Locale(c), fe)
	d.Form = f
	return Render(c, http.StatusUnprocessableEntity, views.Users(Locale(c), d))
}

// UserFormState disables (disabled=true, which signs them out) or enables a user.
// POST /people/:name/state.
func (h *People) UserFormState(c echo.Context) error {
	name := c.Param("name")
	var disabled bool
	switch c.FormValue("disabled") {
	case "true":
		disabled = true
	case "false":
	default:
		return badRequest("disabled", "disabled must be true or false")
	}
	err := h.store.SetUserDisabled(c.Request().Context(), Who(c).User.Name, name, disabled, h.now())
	what := "enabled"
	if disabled {
		what = "disabled"
	}
	return h.userActionDone(c, name, what, err)
}

// UserFormReset sets a user's password (admins); the user is signed out.
// POST /people/:name/password.
func (h *People) UserFormReset(c echo.Context) error {
	name := c.Param("name")
	err := h.store.ResetPassword(c.Request().Context(), Who(c).User.Name, name, c.FormValue("password"), h.now())
	return h.userActionDone(c, name, "reset", err)
}

// userActionDone answers an action on one user: back to the list with a notice, 404 for an
// unknown user, or the page with the refused field (422).
func (h *People) userActionDone(c echo.Context, name, what string, err error) error {
	var fe *models.FieldError
	switch {
	case err == nil:
		return c.Redirect(http.StatusSeeOther, "/people?"+what+"="+url.QueryEscape(name))
	case errors.Is(err, models.ErrNotFound):
		return storeError(err)
	case !errors.As(err, &fe):
		return err
	}
	d, derr := h.usersData(c)
	if derr != nil {
		return derr
	}
	d.Target, d.Field, d.Error = name, fe.Field, Invalid(Locale(c), fe)
	return Render(c, http.StatusUnprocessableEntity, views.Users(Locale(c), d))
}
