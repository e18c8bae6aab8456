package bills

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/billing"
	"kashi/handlers"
	"kashi/models"
	billsview "kashi/views/bills"
)

// BillIssue freezes a project's bill of an ended month (finance and admins): 201 with the
// issued bill; 409 when it is already issued; 422 naming month when the month has not
// ended (or prices when a spec has none). POST /api/v1/bills/:project/:month/issue.
func (h *Handler) BillIssue(c echo.Context) error {
	p, month, err := h.billOf(c)
	if err != nil {
		return err
	}
	b, err := h.issue(c, p, month)
	if err != nil {
		return billError(err)
	}
	return c.JSON(http.StatusCreated, b)
}

// BillIssueForm is the issue button of the bill page: back to the page with a notice, or
// the page with what went wrong. POST /bills/:project/:month/issue.
func (h *Handler) BillIssueForm(c echo.Context) error {
	p, month, err := h.billOf(c)
	if err != nil {
		return err
	}
	if _, err := h.issue(c, p, month); err != nil {
		var fe *models.FieldError
		switch {
		case errors.Is(err, models.ErrConflict):
			return h.renderBill(c, http.StatusConflict, p, month, "", billsview.IssuedConflict(handlers.Locale(c), p.Name, month))
		case errors.As(err, &fe):
			return h.renderBill(c, http.StatusUnprocessableEntity, p, month, "", fe.Msg)
		}
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/bills/"+urlPath(p.Name)+"/"+month+"?issued=1")
}

// issue freezes the bill and records it in the audit log.
func (h *Handler) issue(c echo.Context, p models.Project, month string) (billing.Bill, error) {
	ctx := c.Request().Context()
	by := handlers.Who(c).User.Name
	b, err := billing.Issue(ctx, h.store, p.ID, month, by, h.Now())
	if err != nil {
		return billing.Bill{}, err
	}
	after := map[string]any{"month": month, "total_fen": b.TotalFen, "sha256": b.Issued.SHA256}
	if err := h.store.Audit(ctx, h.Now(), by, auditBillIssue, &p.ID, "bill "+p.Name+" "+month, nil, after); err != nil {
		return billing.Bill{}, err
	}
	return b, nil
}
