package bills

import (
	"github.com/labstack/echo/v4"

	"kashi/billing"
)

// BillShow answers a project's bill of a month as JSON, CSV or XLSX (?format=): the issued
// bill from its frozen body (the same bytes on every download), else computed now. A
// project the caller may not see is 404, like one that does not exist.
// GET /api/v1/bills/:project/:month.
func (h *Handler) BillShow(c echo.Context) error {
	p, month, err := h.billOf(c)
	if err != nil {
		return err
	}
	format, err := billFormat(c)
	if err != nil {
		return err
	}
	b, err := billing.ProjectBill(c.Request().Context(), h.store, p.ID, month, h.Now())
	if err != nil {
		return billError(err)
	}
	return sendBills(c, format, billFile(b.Project, month), []billing.Bill{b}, func() any { return b })
}
