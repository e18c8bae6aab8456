package handlers

import (
	"errors"
	"net/http"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"kashi/pilot"
	"kashi/views"
)

// PeekChange reads the change ref names from cc as of now (pilot.ChangeCache.Peek): the
// change, whether it is measured yet; a page error 404 with notFound when there is no such
// change.
func PeekChange(c echo.Context, cc *pilot.ChangeCache, src pilot.ChangeSource, ref pilot.Ref, now time.Time, notFound string) (pilot.Change, bool, error) {
	ch, done, err := cc.Peek(c.Request().Context(), src, ref, now)
	if errors.Is(err, pilot.ErrNoChange) {
		return ch, done, PageError(http.StatusNotFound, notFound)
	}
	return ch, done, err
}

// RenderChange answers a change page's request: the page; with HX-Request, the page's body
// for its poll (HX-Target views.ChangeMeasureID), else the sentence a list loads.
func RenderChange(c echo.Context, page, body, sentence templ.Component) error {
	switch {
	case c.Request().Header.Get("HX-Request") != "true":
		return Render(c, http.StatusOK, page)
	case c.Request().Header.Get("HX-Target") == views.ChangeMeasureID:
		return Render(c, http.StatusOK, body)
	}
	return Render(c, http.StatusOK, sentence)
}
