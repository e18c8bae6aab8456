package bills

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
	"kashi/models"
	billsview "kashi/views/bills"
)

// PlanFormSubmit is the billing plan form of the prices page (admins): amounts typed in
// yuan become fen, size classes typed one per line become the plan's list, then the same
// path as POST /api/v1/projects/:id/plan. A bad field brings the page back (422) with the
// message naming it. POST /prices/plans.
func (h *Handler) PlanFormSubmit(c echo.Context) error {
	f := billsview.PlanForm{Project: c.FormValue("project"), FromMonth: c.FormValue("from_month"), Mode: c.FormValue("mode"),
		PackageSpec: strings.TrimSpace(c.FormValue("package_spec")), PackageCards: strings.TrimSpace(c.FormValue("package_cards")),
		PackageFee: c.FormValue("package_fee"), UnitPrice: c.FormValue("unit_price"), SizeClasses: c.FormValue("size_classes")}
	err := func() error {
		var ps models.Problems
		p, err := h.store.ProjectByName(c.Request().Context(), f.Project)
		switch {
		case errors.Is(err, models.ErrNotFound):
			ps.Add(models.Invalid("project", "no project %s", f.Project))
		case err != nil:
			return err
		}
		b, err := planFromForm(f)
		ps.Add(err)
		if ps.Err() != nil {
			// The rest is checked too, storing nothing, so that every problem is named at once.
			ps.Add(models.CheckPlan(planOf(p.ID, &b)))
			return ps.Err()
		}
		return h.setPlan(c, p.ID, &b)
	}()
	l := handlers.Locale(c)
	ps, ok := handlers.FormProblems(l, err, billsview.PlanFields)
	switch {
	case err == nil:
		return c.Redirect(http.StatusSeeOther, "/prices?plan="+url.QueryEscape(f.Project)+"&from="+url.QueryEscape(f.FromMonth))
	case !ok:
		return err
	}
	d, derr := h.pricesData(c)
	if derr != nil {
		return derr
	}
	f.Problems = ps
	d.PlanForm = f
	return handlers.Render(c, http.StatusUnprocessableEntity, billsview.Prices(l, d))
}

// planFromForm reads the fields of the form's mode; the others are ignored. Every field it
// cannot read is named.
func planFromForm(f billsview.PlanForm) (api.Plan, error) {
	b := api.Plan{FromMonth: f.FromMonth, Mode: f.Mode}
	var ps models.Problems
	var err error
	switch f.Mode {
	case models.BillReserved:
		b.PackageSpec = f.PackageSpec
		if b.PackageCards, err = strconv.Atoi(f.PackageCards); err != nil {
			ps.Add(models.Invalid("package_cards", "must be a whole number of cards"))
		}
		b.PackageFeeFen, err = handlers.ParseYuan("package_fee_fen", f.PackageFee, false)
		ps.Add(err)
	case models.BillPerTask:
		if strings.TrimSpace(f.SizeClasses) != "" {
			b.SizeClasses, err = sizeClassesFromText(f.SizeClasses)
			return b, err
		}
		b.UnitPriceFen, err = handlers.ParseYuan("unit_price_fen", f.UnitPrice, false)
		ps.Add(err)
	}
	return b, ps.Err()
}

// sizeClassesFromText reads size classes typed one per line as "name, up to card-hours,
// price in yuan" into the plan's JSON list; the store checks the limits.
func sizeClassesFromText(text string) (json.RawMessage, error) {
	var cs []models.SizeClass
	for i, line := range strings.Split(strings.TrimSpace(text), "\n") {
		field := fmt.Sprintf("size_classes[%d]", len(cs))
		parts := strings.Split(line, ",")
		if strings.TrimSpace(line) == "" {
			continue
		}
		if len(parts) < 3 {
			return nil, models.Invalid(field, "line %d must be: name, up to card-hours, price", i+1)
		}
		name := strings.TrimSpace(parts[0])
		hours, err := strconv.ParseInt(strings.TrimSpace(parts[1]), 10, 64)
		if err != nil {
			return nil, models.Invalid(field+".max_card_hours", "line %d: card-hours must be a whole number", i+1)
		}
		price, err := handlers.ParseYuan(field+".price_fen", strings.Join(parts[2:], ","), false)
		if err != nil {
			return nil, err
		}
		cs = append(cs, models.SizeClass{Name: name, MaxCardHours: hours, PriceFen: price})
	}
	return json.Marshal(cs)
}
