package handlers

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/models"
	"kashi/phrase"
	"kashi/views"
)

// Render writes a templ component as the HTML response.
func Render(c echo.Context, status int, comp templ.Component) error {
	var buf bytes.Buffer
	if err := comp.Render(RenderContext(c), &buf); err != nil {
		return err
	}
	return c.HTMLBlob(status, buf.Bytes())
}

// RenderContext is the request's context with who looks at the page and the CSRF token, for
// the layout and forms.
func RenderContext(c echo.Context) context.Context {
	v := views.Viewer{}
	v.CSRF, _ = c.Get(CSRFKey).(string)
	if p := Who(c); p != nil {
		v.Name, v.Role, v.Lead, v.Unread, v.Pending = p.User.Name, p.User.Role, p.LeadsAny(), p.Unread, p.Pending
	}
	return views.WithViewer(c.Request().Context(), v)
}

// Locale returns the request's locale, set by the web layer's middleware.
func Locale(c echo.Context) phrase.Locale {
	if l, ok := c.Get(localeKey).(phrase.Locale); ok {
		return l
	}
	return phrase.Locale{Lang: phrase.LangEN}
}

// SetLocale stores the request's locale for Locale.
func SetLocale(c echo.Context, l phrase.Locale) { c.Set(localeKey, l) }

const localeKey = "kashi.locale"

// APIError answers an API request with the JSON error body; field errors (a
// *models.FieldError or models.FieldErrors) become status with the first one's field and
// message and every one in errors, any other error passes to the error handler.
func APIError(status int, err error) error {
	fes := models.AllFieldErrors(err)
	if fes == nil {
		return err
	}
	body := api.Error{Error: fes[0].Error(), Field: fes[0].Field}
	for _, fe := range fes {
		body.Errors = append(body.Errors, api.FieldError{Field: fe.Field, Error: fe.Error()})
	}
	return echo.NewHTTPError(status, body).SetInternal(err)
}

// Invalid is a bad field's message in the page's language (phrase.Locale.Invalid).
func Invalid(l phrase.Locale, fe *models.FieldError) string {
	return l.Invalid(fe.Field, fe.Format, fe.Args, fe.Msg)
}

// FormProblems is every field error err carries as the problems of a refused form, in the
// page's language (each led by its field's label) and in the form's order (the fields of the
// form, as the store names them); ok is false when err carries none.
func FormProblems(l phrase.Locale, err error, order []string) (ps views.Problems, ok bool) {
	return FormProblemsOf(l, err, order, nil)
}

// FormProblemsOf is FormProblems for a form whose inputs the store's fields come from by
// input (a field → the form's input, as order names inputs), each problem named by its
// input and its input's label; a nil input is the identity.
func FormProblemsOf(l phrase.Locale, err error, order []string, input func(field string) string) (ps views.Problems, ok bool) {
	fes := models.AllFieldErrors(err)
	if fes == nil {
		return nil, false
	}
	for _, fe := range fes {
		if input != nil {
			in := *fe
			in.Field = input(fe.Field)
			fe = &in
		}
		if !slices.ContainsFunc(ps, func(p views.Problem) bool { return p.Field == fe.Field }) {
			ps = append(ps, views.Problem{Field: fe.Field, Text: Invalid(l, fe)})
		}
	}
	return ps.InFormOrder(order), true
}

// FieldProblem is Invalid of the *models.FieldError that err carries; ok is false when it
// carries none.
func FieldProblem(l phrase.Locale, err error) (msg string, ok bool) {
	var fe *models.FieldError
	if !errors.As(err, &fe) {
		return "", false
	}
	return Invalid(l, fe), true
}

// said is an error message a handler wrote in the page's language (PageError).
type said string

// PageError answers status with msg, which the handler wrote in the page's language: the
// error page shows it in every language. A plain message (echo's string) is the API's
// English and shows on English pages only.
func PageError(status int, msg string) error { return echo.NewHTTPError(status, said(msg)) }

// PageText is the message of an error PageError made; ok is false for any other error.
func PageText(err error) (msg string, ok bool) {
	var he *echo.HTTPError
	if errors.As(err, &he) {
		if m, ok := he.Message.(said); ok {
			return string(m), true
		}
	}
	return "", false
}

// BadChoice is a page's 400 for a query parameter that is none of its choices, in the page's
// language: "In the address, view must be one of: cards, grid."
func BadChoice(c echo.Context, param string, choices ...string) error {
	return PageError(http.StatusBadRequest, Locale(c).T("error.param", param, strings.Join(choices, ", ")))
}

// BadRange is a page's 400 for a query parameter that is not a whole number from lo to hi,
// in the page's language.
func BadRange(c echo.Context, param string, lo, hi int) error {
	l := Locale(c)
	return PageError(http.StatusBadRequest, l.T("error.param_range", param, l.Int(lo), l.Int(hi)))
}

// BadRequest answers 400 with a message naming field.
func BadRequest(field, msg string) error {
	return echo.NewHTTPError(http.StatusBadRequest, api.Error{Error: msg, Field: field})
}

// StoreError maps the store's sentinel errors to 404 and 409.
func StoreError(err error) error {
	switch {
	case errors.Is(err, models.ErrNotFound):
		return echo.NewHTTPError(http.StatusNotFound, api.Error{Error: "not found"})
	case errors.Is(err, models.ErrConflict):
		return echo.NewHTTPError(http.StatusConflict, api.Error{Error: conflictMessage(err)})
	}
	return APIError(http.StatusUnprocessableEntity, err)
}

// IsHTMX reports whether htmx sent the request, which then wants a fragment.
func IsHTMX(c echo.Context) bool { return c.Request().Header.Get("HX-Request") == "true" }

// Forbidden answers 403 with a message.
func Forbidden(msg string) error {
	return echo.NewHTTPError(http.StatusForbidden, api.Error{Error: msg})
}

// Unauthorized answers 401 with msg.
func Unauthorized(msg string) error {
	return echo.NewHTTPError(http.StatusUnauthorized, api.Error{Error: msg})
}

// Problem is the message of a refused form: the field error's text in the page's language,
// or the HTTP error's.
func Problem(l phrase.Locale, err error) string {
	var fe *models.FieldError
	if errors.As(err, &fe) {
		return Invalid(l, fe)
	}
	var he *echo.HTTPError
	if errors.As(err, &he) {
		if pe, ok := he.Message.(api.Error); ok {
			return pe.Error
		}
	}
	return err.Error()
}

// conflictMessage is the part of a conflict error a client may read: the store's message
// without its package prefix.
func conflictMessage(err error) string {
	msg := err.Error()
	if i := len("models: "); len(msg) > i && msg[:i] == "models: " {
		msg = msg[i:]
	}
	return msg
}

// Busy reports whether err means the server is past capacity rather than broken
// (models.Overloaded): the error handler answers it 503 with Retry-After.
func Busy(err error) bool { return models.Overloaded(err) }
