package people

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
	"kashi/models"
	peopleview "kashi/views/people"
)

// UsersPage lists every user with the add form and per-user actions (admins). ?created=,
// ?disabled=, ?enabled= and ?reset= name the user an action just changed. GET /people.
func (h *Handler) UsersPage(c echo.Context) error {
	d, err := h.usersData(c)
	if err != nil {
		return err
	}
	q := c.QueryParams()
	for _, what := range []string{"created", "disabled", "enabled", "reset", "account"} {
		if q.Has(what) {
			d.Notice = peopleview.UserNotice(handlers.Locale(c), what, q.Get(what))
		}
	}
	return handlers.Render(c, http.StatusOK, peopleview.Users(handlers.Locale(c), d))
}

// usersData reads the people page.
func (h *Handler) usersData(c echo.Context) (peopleview.UsersData, error) {
	us, err := h.store.Users(c.Request().Context())
	if err != nil {
		return peopleview.UsersData{}, err
	}
	d := peopleview.UsersData{Self: handlers.Who(c).User.Name, Form: peopleview.UserForm{Role: models.RoleUser}}
	for _, u := range us {
		d.Users = append(d.Users, peopleview.UserRow{Name: u.Name, Role: u.Role, Disabled: u.Disabled,
			UnixAccount: u.UnixAccount, CreatedAt: u.CreatedAt.In(h.Loc())})
	}
	return d, nil
}

// UserFormCreate is the add-user form: back to the list with a notice, or the page with the
// refused field (422). POST /people.
func (h *Handler) UserFormCreate(c echo.Context) error {
	f := peopleview.UserForm{Name: c.FormValue("name"), Role: c.FormValue("role")}
	_, err := h.createUser(c, f.Name, c.FormValue("password"), f.Role)
	ps, ok := handlers.FormProblems(handlers.Locale(c), err, peopleview.UserFields)
	switch {
	case err == nil:
		return c.Redirect(http.StatusSeeOther, "/people?created="+url.QueryEscape(f.Name))
	case !ok:
		return err
	}
	d, err := h.usersData(c)
	if err != nil {
		return err
	}
	f.Problems = ps
	d.Form = f
	return handlers.Render(c, http.StatusUnprocessableEntity, peopleview.Users(handlers.Locale(c), d))
}

// UserFormState disables (disabled=true, which signs them out) or enables a user.
// POST /people/:name/state.
func (h *Handler) UserFormState(c echo.Context) error {
	name := c.Param("name")
	var disabled bool
	switch c.FormValue("disabled") {
	case "true":
		disabled = true
	case "false":
	default:
		return handlers.BadRequest("disabled", "disabled must be true or false")
	}
	err := h.store.SetUserDisabled(c.Request().Context(), handlers.Who(c).User.Name, name, disabled, h.Now())
	what := "enabled"
	if disabled {
		what = "disabled"
	}
	return h.userActionDone(c, name, what, err)
}

// UserFormReset sets a user's password (admins); the user is signed out everywhere and
// their API tokens are revoked.
// POST /people/:name/password.
func (h *Handler) UserFormReset(c echo.Context) error {
	name := c.Param("name")
	err := h.store.ResetPassword(c.Request().Context(), handlers.Who(c).User.Name, name, c.FormValue("password"), h.Now())
	return h.userActionDone(c, name, "reset", err)
}

// userActionDone answers an action on one user: back to the list with a notice, 404 for an
// unknown user, or the page with the refused field (422).
func (h *Handler) userActionDone(c echo.Context, name, what string, err error) error {
	var fe *models.FieldError
	switch {
	case err == nil:
		return c.Redirect(http.StatusSeeOther, "/people?"+what+"="+url.QueryEscape(name))
	case errors.Is(err, models.ErrNotFound):
		return handlers.StoreError(err)
	case !errors.As(err, &fe):
		return err
	}
	d, derr := h.usersData(c)
	if derr != nil {
		return derr
	}
	d.Target, d.Field, d.Error = name, fe.Field, handlers.Invalid(handlers.Locale(c), fe)
	return handlers.Render(c, http.StatusUnprocessableEntity, peopleview.Users(handlers.Locale(c), d))
}
