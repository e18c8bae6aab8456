package bills

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
	"kashi/models"
	"kashi/views"
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
	b := api.NewAdjustment{AmountFen: amount, Reason: form.Reason, CorrectsMonth: form.CorrectsMonth}
	if err == nil {
		_, err = h.addAdjustment(c, p, month, b)
	} else {
		// The rest is checked too, storing nothing, so that every problem is named at once.
		var ps models.Problems
		ps.Add(err)
		ps.Add(models.CheckAdjustment(models.Adjustment{ProjectID: p.ID, Month: month, AmountFen: b.AmountFen, Reason: b.Reason,
			CorrectsMonth: b.CorrectsMonth, CreatedBy: handlers.Who(c).User.Name}))
		err = ps.Err()
	}
	l := handlers.Locale(c)
	status := http.StatusUnprocessableEntity
	ps, ok := handlers.FormProblems(l, err, billsview.AdjustFields)
	switch {
	case err == nil:
		return c.Redirect(http.StatusSeeOther, "/bills/"+urlPath(p.Name)+"/"+month+"?adjusted=1")
	case ok:
		form.Problems = ps
	case errors.Is(err, models.ErrConflict):
		status, form.Problems = http.StatusConflict, views.Problems{{Text: billsview.AdjustIssued(l, p.Name, month)}}
	default:
		return err
	}
	return h.renderBillForm(c, status, p, month, form)
}
