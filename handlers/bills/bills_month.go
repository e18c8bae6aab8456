package bills

import (
	"encoding/json"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/billing"
)

// BillsMonth answers every project's bill of a month (finance and admins) as JSON, CSV or
// XLSX, issued bills as frozen. GET /api/v1/bills/:month.
func (h *Handler) BillsMonth(c echo.Context) error {
	month, err := billMonth(c.Param("month"))
	if err != nil {
		return err
	}
	format, err := billFormat(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	res, err := billing.MonthBills(ctx, h.store, month, h.Now())
	if err != nil {
		return billError(err)
	}
	return sendBills(c, format, "kashi-all-projects-"+month, res.Bills, func() any { return monthBody(month, res) })
}

// monthBody is a month's bills as the JSON answer: bills and idle hours are plain data, so
// they always encode.
func monthBody(month string, res billing.Result) api.MonthBills {
	if res.PoolIdle == nil {
		res.PoolIdle = []billing.PoolIdle{}
	}
	body := api.MonthBills{Month: month}
	body.Bills, _ = json.Marshal(res.Bills)
	body.PoolIdle, _ = json.Marshal(res.PoolIdle)
	for _, b := range res.Bills {
		body.TotalFen = billing.AddFen(body.TotalFen, b.TotalFen)
	}
	return body
}
