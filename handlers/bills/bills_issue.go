package bills

import (
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/billing"
	"kashi/handlers"
	"kashi/models"
	billsview "kashi/views/bills"
)

// BillsIssue issues every project's unissued bill of an ended month, each bill on its own
// (in its own transaction, audited as one issue), and answers which were issued and which
// could not be: a bill with a spec without a price stays unissued and the others are issued
// all the same. A bad month is 400, one not ended 422. POST /api/v1/bills/:month/issue.
func (h *Handler) BillsIssue(c echo.Context) error {
	month, err := billMonth(c.Param("month"))
	if err != nil {
		return err
	}
	rs, err := h.issueAll(c, month)
	if err != nil {
		return billError(err)
	}
	out := api.BillsIssued{Month: month, Issued: []api.BillIssued{}, NotIssued: []api.BillNotIssued{}}
	for _, r := range rs {
		if r.done() {
			out.Issued = append(out.Issued, api.BillIssued{Project: r.project, TotalFen: r.bill.TotalFen, SHA256: r.bill.Issued.SHA256})
			out.TotalFen = billing.AddFen(out.TotalFen, r.bill.TotalFen)
			continue
		}
		n := api.BillNotIssued{Project: r.project, Error: "issued meanwhile by another request", MissingPrices: r.missing}
		var fe *models.FieldError
		switch {
		case len(r.missing) > 0:
			n.Error, n.Field = "no price for "+strings.Join(r.missing, ", "), "prices"
		case errors.As(r.err, &fe):
			n.Error, n.Field = fe.Error(), fe.Field
		}
		out.NotIssued = append(out.NotIssued, n)
	}
	return c.JSON(http.StatusOK, out)
}

// BillsIssueForm is the bills page's "issue all": the page of the month again, saying which
// bills were issued and which could not be. POST /bills/:month/issue.
func (h *Handler) BillsIssueForm(c echo.Context) error {
	month, err := billMonth(c.Param("month"))
	if err != nil {
		return err
	}
	rs, err := h.issueAll(c, month)
	if err != nil {
		return billError(err)
	}
	l := handlers.Locale(c)
	rep := &billsview.IssueReport{}
	for _, r := range rs {
		if r.done() {
			rep.Issued = append(rep.Issued, billsview.BillRow{Project: r.project, TotalFen: r.bill.TotalFen})
			rep.TotalFen = billing.AddFen(rep.TotalFen, r.bill.TotalFen)
			continue
		}
		n := billsview.NotIssued{Project: r.project, MissingPrices: r.missing}
		if errors.As(r.err, new(*models.FieldError)) {
			n.Problem = handlers.Problem(l, r.err)
		}
		rep.NotIssued = append(rep.NotIssued, n)
	}
	return h.billsPage(c, month, rep)
}

// issueResult is what issuing one project's bill did: bill is the issued bill, else missing
// names the specs without a price or err says why it was refused (a *models.FieldError, or
// models.ErrConflict when another request issued it first).
type issueResult struct {
	project string
	bill    billing.Bill
	missing []string
	err     error
}

// done reports whether the bill was issued.
func (r issueResult) done() bool { return r.err == nil && len(r.missing) == 0 }

// issueAll issues, one by one, every bill of month that is not issued yet, in project order.
// A month not ended is a *models.FieldError and issues nothing; a bill that cannot be issued
// is reported and the next one tried; any other error stops at that bill, the bills before
// it staying issued.
func (h *Handler) issueAll(c echo.Context, month string) ([]issueResult, error) {
	ctx, now := c.Request().Context(), h.Now()
	loc, err := billing.Location(ctx, h.store)
	if err != nil {
		return nil, err
	}
	if _, err := billing.EndedMonth(month, loc, now); err != nil {
		return nil, err
	}
	res, err := billing.MonthBills(ctx, h.store, month, now)
	if err != nil {
		return nil, err
	}
	var out []issueResult
	for _, b := range res.Bills {
		if b.Issued != nil {
			continue
		}
		r := issueResult{project: b.Project, missing: b.MissingPrices}
		if len(r.missing) == 0 {
			r.bill, r.err = h.issue(c, models.Project{ID: b.ProjectID, Name: b.Project}, month)
			if r.err != nil && !errors.Is(r.err, models.ErrConflict) && !errors.As(r.err, new(*models.FieldError)) {
				return out, r.err
			}
		}
		out = append(out, r)
	}
	return out, nil
}
