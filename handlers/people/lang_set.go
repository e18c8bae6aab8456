package people

import (
	"net/http"
	"net/url"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
	"kashi/phrase"
)

// LangCookie remembers the chosen language.
const LangCookie = "kashi_lang"

// LangSet remembers the language chosen in the switcher and goes back to the page it was
// chosen on (only a path on this site). GET /lang?set=zh-CN.
func (h *Handler) LangSet(c echo.Context) error {
	set := c.QueryParam("set")
	ok := false
	for _, l := range phrase.Languages() {
		ok = ok || l.Code == set
	}
	if !ok {
		return handlers.BadRequest("set", "set: unknown language "+url.QueryEscape(set))
	}
	c.SetCookie(&http.Cookie{Name: LangCookie, Value: set, Path: "/", MaxAge: int((365 * 24 * time.Hour).Seconds()),
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: c.IsTLS()})
	back := "/"
	if ref, err := url.Parse(c.Request().Referer()); err == nil && ref.Host == c.Request().Host && ref.Path != "" {
		back = localPath(ref.RequestURI())
	}
	return c.Redirect(http.StatusSeeOther, back)
}
