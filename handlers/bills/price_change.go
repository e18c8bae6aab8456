package bills

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"kashi/billing"
	"kashi/handlers"
	"kashi/pilot"
	billsview "kashi/views/bills"
)

// PriceChange shows what a price changed: the bills' lines of its spec in its month against
// the month before, and its month billed at the old rates and the new. The measure runs in
// the background once per period in the server's one cache (pilot.ChangeCache); until it is
// done the page says so and polls. With HX-Request only the price list's sentence comes
// back, or, for the page's poll (HX-Target change-measure), the page's body. A row
// that is a spec's first price is no change (404). GET /prices/changes/:id.
func (h *Handler) PriceChange(c echo.Context) error {
	l := handlers.Locale(c)
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id < 1 {
		return handlers.PageError(http.StatusNotFound, l.T("change.err_price"))
	}
	ch, done, err := handlers.PeekChange(c, h.changes, h.store, pilot.PriceRef(id), h.Now(), l.T("change.err_price"))
	if err != nil {
		return err
	}
	loc, err := billing.Location(c.Request().Context(), h.store) // a price's months are the bills'
	if err != nil {
		return err
	}
	p := ch.Price
	d := billsview.PriceChangeData{ID: id, Name: ch.Name(l), Project: p.Project, OldRateFen: p.OldRateFen, NewRateFen: p.NewRateFen,
		OldOverflowFen: p.OldOverflowFen, NewOverflowFen: p.NewOverflowFen, Computing: !done, Ready: ch.Ready,
		From: ch.From.In(loc), At: ch.At.In(loc), To: ch.To.In(loc), Before: handlers.PeriodFigures(ch.Before), After: handlers.PeriodFigures(ch.After),
		OldFen: ch.Counter.OldFen, NewFen: ch.Counter.NewFen}
	if done {
		d.Sentence = ch.Sentence(l, loc)
	}
	return handlers.RenderChange(c, billsview.PriceChange(l, d), billsview.PriceChangeMeasure(l, d), billsview.PriceChangeSentence(l, d))
}
