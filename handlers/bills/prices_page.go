package bills

import (
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"kashi/billing"
	"kashi/handlers"
	"kashi/models"
	billsview "kashi/views/bills"
)

// PricesPage shows every price and billing plan with its versions (finance and admins);
// admins also get the forms. ?spec= and ?month= prefill the price form (the link of a bill
// that misses a price). GET /prices.
func (h *Handler) PricesPage(c echo.Context) error {
	d, err := h.pricesData(c)
	if err != nil {
		return err
	}
	l := handlers.Locale(c)
	q := c.QueryParams()
	if s := q.Get("spec"); s != "" && len(s) <= 100 {
		d.PriceForm.Spec = s
	}
	if m := q.Get("month"); m != "" {
		if _, err := billMonth(m); err == nil {
			d.PriceForm.FromMonth = m
		}
	}
	switch {
	case q.Has("price"):
		d.Notice = billsview.PriceSavedNotice(l, q.Get("price"), q.Get("from"))
	case q.Has("plan"):
		d.Notice = billsview.PlanSavedNotice(l, q.Get("plan"), q.Get("from"))
	}
	return handlers.Render(c, http.StatusOK, billsview.Prices(l, d))
}

// pricesData reads the prices page: the versions, the specs without a price this month, and
// the forms prefilled with this month.
func (h *Handler) pricesData(c echo.Context) (billsview.PricesData, error) {
	ctx := c.Request().Context()
	loc, err := billing.Location(ctx, h.store)
	if err != nil {
		return billsview.PricesData{}, err
	}
	month := billing.MonthOf(h.Now(), loc).String()
	who := handlers.Who(c)
	d := billsview.PricesData{Month: month, TimeZone: loc.String(), CanEdit: who.Admin() && !who.ReadOnly,
		PriceForm: billsview.PriceForm{FromMonth: month}, PlanForm: billsview.PlanForm{FromMonth: month, Mode: models.BillPayAsYouGo}}
	projects, err := h.store.Projects(ctx)
	if err != nil {
		return d, err
	}
	names := make(map[int64]string, len(projects))
	for _, p := range projects {
		names[p.ID] = p.Name
		d.Projects = append(d.Projects, p.Name)
	}
	_, specs, _, err := h.store.BoardOptions(ctx)
	if err != nil {
		return d, err
	}
	prices, err := h.store.PriceHistory(ctx)
	if err != nil {
		return d, err
	}
	priced := map[string]bool{}
	// History comes newest first per project and spec: the first version not after month
	// is the one in force.
	seen := map[[2]string]bool{}
	for i, p := range prices {
		row := billsview.PriceRow{Project: names[p.ProjectID], Spec: p.Spec, FromMonth: p.FromMonth, RateFen: p.RateFen,
			OverflowRateFen: p.OverflowRateFen, UpdatedAt: p.UpdatedAt.In(loc)}
		if i+1 < len(prices) && prices[i+1].ProjectID == p.ProjectID && prices[i+1].Spec == p.Spec {
			row.ChangeID = p.ID // an earlier price of the same project and spec follows
		}
		key := [2]string{row.Project, p.Spec}
		if p.FromMonth <= month && !seen[key] {
			row.InForce, seen[key] = true, true
			if p.ProjectID == 0 {
				priced[p.Spec] = true
			}
		}
		d.Prices = append(d.Prices, row)
		if !slices.Contains(specs, p.Spec) {
			specs = append(specs, p.Spec)
		}
	}
	measureLatest(d.Prices)
	slices.Sort(specs)
	d.Specs = specs
	for _, s := range specs {
		if !priced[s] {
			d.Missing = append(d.Missing, s)
		}
	}
	plans, err := h.store.BillingPlanHistory(ctx)
	if err != nil {
		return d, err
	}
	inForce := map[int64]bool{}
	for _, p := range plans {
		row := billsview.PlanRow{Project: names[p.ProjectID], FromMonth: p.FromMonth, Mode: p.Mode, PackageSpec: p.PackageSpec,
			PackageCards: p.PackageCards, PackageFeeFen: p.PackageFeeFen, UnitPriceFen: p.UnitPriceFen}
		classes, _ := models.ParseSizeClasses(p.SizeClasses)
		for _, sc := range classes {
			row.SizeClasses = append(row.SizeClasses, billsview.SizeClassView{Name: sc.Name, MaxCardHours: sc.MaxCardHours, PriceFen: sc.PriceFen})
		}
		if p.FromMonth <= month && !inForce[p.ProjectID] {
			row.InForce, inForce[p.ProjectID] = true, true
		}
		d.Plans = append(d.Plans, row)
	}
	return d, nil
}

// measuredPrices is how many of the latest price changes the price list measures as it loads.
const measuredPrices = 3

// measureLatest marks the latest measuredPrices changes among rows (by month) to be measured
// as the list loads; older ones link to their page.
func measureLatest(rows []billsview.PriceRow) {
	var changes []int
	for i, r := range rows {
		if r.ChangeID != 0 {
			changes = append(changes, i)
		}
	}
	slices.SortStableFunc(changes, func(a, b int) int { return strings.Compare(rows[b].FromMonth, rows[a].FromMonth) })
	for _, i := range changes[:min(len(changes), measuredPrices)] {
		rows[i].Measured = true
	}
}
