package handlers

import (
	"bytes"
	"context"
	"errors"
	"net/http"

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
	if err := comp.Render(renderContext(c), &buf); err != nil {
		return err
	}
	return c.HTMLBlob(status, buf.Bytes())
}

// renderContext is the request's context with who looks at the page and the CSRF token, for
// the layout and forms.
func renderContext(c echo.Context) context.Context {
	v := views.Viewer{}
	v.CSRF, _ = c.Get(CSRFKey).(string)
	if p := Who(c); p != nil {
		v.Name, v.Role, v.Lead, v.Unread, v.Pending = p.User.Name, p.User.Role, p.leadsAny(), p.Unread, p.Pending
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

// apiError answers an API request with the JSON error body; a *models.FieldError becomes
// status with its field, any other error passes to the error handler.
func apiError(status int, err error) error {
	var fe *models.FieldError
	if errors.As(err, &fe) {
		return echo.NewHTTPError(status, api.Error{Error: fe.Error(), Field: fe.Field}).SetInternal(fe)
	}
	return err
}

// Invalid is a bad field's message in the page's language (phrase.Locale.Invalid).
func Invalid(l phrase.Locale, fe *models.FieldError) string {
	return l.Invalid(fe.Field, fe.Format, fe.Args, fe.Msg)
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

// badRequest answers 400 with a message naming field.
func badRequest(field, msg string) error {
	return echo.NewHTTPError(http.StatusBadRequest, api.Error{Error: msg, Field: field})
}
