package bills

import (
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
	"kashi/models"
	billsview "kashi/views/bills"
)

// PriceFormSubmit is the price form of the prices page (admins): the rates typed in yuan
// become fen, then the same path as POST /api/v1/prices. A bad field brings the page back
// (422) with the message naming it. POST /prices.
func (h *Handler) PriceFormSubmit(c echo.Context) error {
	f := billsview.PriceForm{Project: c.FormValue("project"), Spec: c.FormValue("spec"), FromMonth: c.FormValue("from_month"),
		Rate: c.FormValue("rate"), OverflowRate: c.FormValue("overflow_rate")}
	err := func() error {
		var ps models.Problems
		rate, err := handlers.ParseYuan("rate_fen", f.Rate, false)
		ps.Add(err)
		overflow := int64(0)
		if f.OverflowRate != "" {
			overflow, err = handlers.ParseYuan("overflow_rate_fen", f.OverflowRate, false)
			ps.Add(err)
		}
		b := api.Price{Project: f.Project, Spec: f.Spec, FromMonth: f.FromMonth, RateFen: rate, OverflowRateFen: overflow}
		if ps.Err() != nil {
			// The rest is checked too, storing nothing, so that every problem is named at once.
			ps.Add(h.checkPrice(c, b))
			return ps.Err()
		}
		return h.setPrice(c, b)
	}()
	l := handlers.Locale(c)
	ps, ok := handlers.FormProblems(l, err, billsview.PriceFields)
	switch {
	case err == nil:
		return c.Redirect(http.StatusSeeOther, "/prices?price="+url.QueryEscape(f.Spec)+"&from="+url.QueryEscape(f.FromMonth))
	case !ok:
		return err
	}
	d, derr := h.pricesData(c)
	if derr != nil {
		return derr
	}
	f.Problems = ps
	d.PriceForm = f
	return handlers.Render(c, http.StatusUnprocessableEntity, billsview.Prices(l, d))
}
