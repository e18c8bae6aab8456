package bills

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"

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
		rate, err := handlers.ParseYuan("rate_fen", f.Rate, false)
		if err != nil {
			return err
		}
		overflow := int64(0)
		if f.OverflowRate != "" {
			if overflow, err = handlers.ParseYuan("overflow_rate_fen", f.OverflowRate, false); err != nil {
				return err
			}
		}
		return h.setPrice(c, priceBody{Project: f.Project, Spec: f.Spec, FromMonth: f.FromMonth, RateFen: rate, OverflowRateFen: overflow})
	}()
	var fe *models.FieldError
	switch {
	case err == nil:
		return c.Redirect(http.StatusSeeOther, "/prices?price="+url.QueryEscape(f.Spec)+"&from="+url.QueryEscape(f.FromMonth))
	case !errors.As(err, &fe):
		return err
	}
	d, derr := h.pricesData(c)
	if derr != nil {
		return derr
	}
	f.Field, f.Error = fe.Field, handlers.Invalid(handlers.Locale(c), fe)
	d.PriceForm = f
	return handlers.Render(c, http.StatusUnprocessableEntity, billsview.Prices(handlers.Locale(c), d))
}
