package bills

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
	"kashi/models"
	billsview "kashi/views/bills"
)

// AdjustmentFormSubmit is the adjustment form of an unissued bill (finance and admins): the
// amount typed in yuan (negative for a credit) and a reason. Back to the bill with a notice,
// or the bill with the form's problem: 422 naming the field, 409 when the bill is issued.
// POST /bills/:project/:month/adjustments.
func (h *Handler) AdjustmentFormSubmit(c echo.Context) error {
	p, month, err := h.billOf(c)
	if err != nil {
		return err
	}
	form := billsview.AdjustForm{Amount: c.FormValue("amount"), Reason: c.FormValue("reason"), CorrectsMonth: c.FormValue("corrects_month")}
	amount, err := handlers.ParseYuan("amount_fen", form.Amount, true)
	if err == nil {
		_, err = h.addAdjustment(c, p, month, adjustmentBody{AmountFen: amount, Reason: form.Reason, CorrectsMonth: form.CorrectsMonth})
	}
	var fe *models.FieldError
	status := http.StatusUnprocessableEntity
	switch {
	case err == nil:
		return c.Redirect(http.StatusSeeOther, "/bills/"+urlPath(p.Name)+"/"+month+"?adjusted=1")
	case errors.As(err, &fe):
		form.Field, form.Error = fe.Field, handlers.Invalid(handlers.Locale(c), fe)
	case errors.Is(err, models.ErrConflict):
		status, form.Error = http.StatusConflict, billsview.AdjustIssued(handlers.Locale(c), p.Name, month)
	default:
		return err
	}
	return h.renderBillForm(c, status, p, month, form)
}
