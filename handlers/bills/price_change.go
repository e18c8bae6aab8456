package bills

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"kashi/billing"
	"kashi/handlers"
	"kashi/pilot"
	"kashi/views"
	billsview "kashi/views/bills"
)

// PriceChange shows what a price changed: the bills' lines of its spec in its month against
// the month before, and its month billed at the old rates and the new. The measure runs in
// the background once per period in the server's one cache (pilot.ChangeCache); until it is
// done the page says so and polls. With HX-Request only the price list's sentence comes
// back, or, for the page's poll (HX-Target change-measure), the page's body. A row
// that is a spec's first price is no change (404). GET /prices/changes/:id.
func (h *Handler) PriceChange(c echo.Context) error {
	l, ctx := handlers.Locale(c), c.Request().Context()
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id < 1 {
		return handlers.PageError(http.StatusNotFound, l.T("change.err_price"))
	}
	ch, done, err := h.changes.Peek(ctx, h.store, pilot.PriceRef(id), h.Now())
	if errors.Is(err, pilot.ErrNoChange) {
		return handlers.PageError(http.StatusNotFound, l.T("change.err_price"))
	}
	if err != nil {
		return err
	}
	loc, err := billing.Location(ctx, h.store) // a price's months are the bills'
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
	switch {
	case c.Request().Header.Get("HX-Request") != "true":
		return handlers.Render(c, http.StatusOK, billsview.PriceChange(l, d))
	case c.Request().Header.Get("HX-Target") == views.ChangeMeasureID:
		return handlers.Render(c, http.StatusOK, billsview.PriceChangeMeasure(l, d))
	}
	return handlers.Render(c, http.StatusOK, billsview.PriceChangeSentence(l, d))
}
