package pools

import (
	"math"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
	"kashi/pilot"
	poolsview "kashi/views/pools"
)

// measuredVersions is how many of a pool's latest changes its version list measures as it
// loads (each replays a period twice).
const measuredVersions = 3

// PoolChange shows what a version of a pool's settings changed: the period after it against
// the period before (cost, effective share, waits, idle hours) and the period after replayed
// under the old settings and the new. The measure runs in the background once per period
// (pilot.ChangeCache); until it is done the page says so and polls. With HX-Request only the
// version list's sentence comes back, or, for the page's poll (HX-Target change-measure),
// the measure's sections. GET /pools/:name/changes/:version.
func (h *Handler) PoolChange(c echo.Context) error {
	l := handlers.Locale(c)
	name := c.Param("name")
	version, err := strconv.Atoi(c.Param("version"))
	if err != nil || version < 1 || version > math.MaxInt32 {
		return handlers.PageError(http.StatusNotFound, l.T("change.err_version"))
	}
	ch, done, err := handlers.PeekChange(c, h.changes, h.store, pilot.PoolRef(name, version), h.Now(), l.T("change.err_version"))
	if err != nil {
		return err
	}
	loc := h.Loc()
	d := poolsview.ChangeData{Now: h.Now().In(loc), Pool: name, Version: version, At: ch.At.In(loc), By: ch.By, Note: ch.Note,
		Changes: configDiff(ch.Old, ch.New), Computing: !done, Ready: ch.Ready, ReadyAt: ch.ReadyAt().In(loc),
		From: ch.From.In(loc), To: ch.To.In(loc), Before: handlers.PeriodFigures(ch.Before), After: handlers.PeriodFigures(ch.After),
		Counter: handlers.CounterFigures(ch)}
	if done {
		d.Sentence = ch.Sentence(l, loc)
	}
	if ch.Ready {
		day := func(t time.Time) string { return t.In(loc).Format(dateLayout) }
		review := "/pools/" + url.PathEscape(name) + "/review?"
		d.BeforeURL = review + url.Values{"from": {day(ch.From)}, "to": {day(ch.At.Add(-time.Second))}}.Encode()
		d.AfterURL = review + url.Values{"from": {day(ch.At)}, "to": {day(ch.To.Add(-time.Second))}}.Encode()
	}
	return handlers.RenderChange(c, poolsview.Change(l, d), poolsview.ChangeMeasure(l, d), poolsview.ChangeSentence(l, d))
}
