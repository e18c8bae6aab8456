package bills

import (
	"github.com/labstack/echo/v4"

	"kashi/billing"
)

// monthBillsJSON is every project's bill of a month in the API.
type monthBillsJSON struct {
	Month    string             `json:"month"`
	Bills    []billing.Bill     `json:"bills"`
	PoolIdle []billing.PoolIdle `json:"pool_idle"`
	TotalFen int64              `json:"total_fen"`
}

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
	body := monthBillsJSON{Month: month, Bills: res.Bills, PoolIdle: res.PoolIdle}
	if body.PoolIdle == nil {
		body.PoolIdle = []billing.PoolIdle{}
	}
	for _, b := range res.Bills {
		body.TotalFen = billing.AddFen(body.TotalFen, b.TotalFen)
	}
	return sendBills(c, format, "kashi-all-projects-"+month, res.Bills, body)
}
