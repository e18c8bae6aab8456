package bills

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
	"kashi/models"
)

// BillingSettings shows the billing zone and the metering thresholds.
// GET /api/v1/billing/settings.
func (h *Handler) BillingSettings(c echo.Context) error {
	bs, err := h.store.BillingSettings(c.Request().Context())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, api.BillingSettings{TimeZone: bs.TimeZone, IdleUtilPct: bs.IdleUtilPct, ActiveUtilPct: bs.ActiveUtilPct})
}

// BillingSettingsSet stores the billing zone and the metering thresholds (admins only); they
// classify what is rolled up from now on, and each rollup and bill records them. A bad value
// is 422 naming the field. POST /api/v1/billing/settings.
func (h *Handler) BillingSettingsSet(c echo.Context) error {
	var b api.BillingSettings
	if err := handlers.DecodeJSON(c, 4<<10, &b); err != nil {
		return err
	}
	bs := models.BillingSettings{TimeZone: b.TimeZone, IdleUtilPct: b.IdleUtilPct, ActiveUtilPct: b.ActiveUtilPct}
	if err := h.store.SetBillingSettings(c.Request().Context(), handlers.Who(c).User.Name, bs, h.Now()); err != nil {
		return handlers.APIError(http.StatusUnprocessableEntity, err)
	}
	return c.JSON(http.StatusOK, b)
}
