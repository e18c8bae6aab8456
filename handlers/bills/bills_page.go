package bills

import (
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/billing"
	"kashi/handlers"
	"kashi/models"
	billsview "kashi/views/bills"
)

// BillsPage shows a month's bills of the projects the caller sees (finance and admins: all,
// with pool idle and downloads of every project), under the charts of their cost over the
// last months and this month against last month (costTrend); the month is ?month=, by default the last
// month that has ended in the billing time zone, or the latest month with card time when
// that one has none (the page says so). Finance and admins may issue every unissued bill
// of an ended month at once (BillsIssueForm). GET /bills.
func (h *Handler) BillsPage(c echo.Context) error {
	return h.billsPage(c, c.QueryParam("month"), nil)
}

// billsPage renders the bills page of month (the default month when empty), with the report
// of an "issue all" when rep is not nil.
func (h *Handler) billsPage(c echo.Context, month string, rep *billsview.IssueReport) error {
	ctx := c.Request().Context()
	p := handlers.Who(c)
	now := h.Now()
	loc, err := billing.Location(ctx, h.store)
	if err != nil {
		return err
	}
	current := billing.MonthOf(now, loc)
	curFrom, _ := current.Bounds(loc)
	last := billing.MonthOf(curFrom.Add(-time.Second), loc)
	fellBack := false
	if month != "" {
		if month, err = billMonth(month); err != nil {
			return err
		}
	} else {
		from, to := last.Bounds(loc)
		at, fb, err := h.openAt(ctx, p, from, to, now)
		if err != nil {
			return err
		}
		month, fellBack = billing.MonthOf(at, loc).String(), fb
	}
	d := billsview.BillsData{Month: month, MaxMonth: current.String(), TimeZone: loc.String(), AllDownloads: p.SeesAllBills(),
		Issue: rep}
	if fellBack {
		d.Notice = billsview.LatestMonthNotice(handlers.Locale(c), last.String(), month)
	}
	bills, poolIdle, err := h.viewerBills(ctx, p, month, now)
	if err != nil {
		return err
	}
	for _, pi := range poolIdle {
		v := billsview.PoolIdleView{Pool: pi.Pool, Spec: pi.Spec, ProvisionedS: pi.ProvisionedS,
			HeldS: pi.HeldS, IdleS: pi.IdleS, PackageS: pi.PackageS, OrganisationS: pi.OrganisationS, UnmanagedS: pi.UnmanagedS}
		for _, n := range pi.UnmanagedNodes {
			v.UnmanagedNodes = append(v.UnmanagedNodes, billsview.NodeSeconds{Node: n.Node, Seconds: n.UnmanagedS})
		}
		d.PoolIdle = append(d.PoolIdle, v)
	}
	d.Groups, d.Total = billGroups(bills)
	if p.SeesAllBills() && !p.ReadOnly && month < current.String() {
		d.IssueAll = issueOffer(bills)
	}
	if d.Trend, err = h.costTrend(ctx, p, current, map[string][]billing.Bill{month: bills}, now, loc); err != nil {
		return err
	}
	return handlers.Render(c, http.StatusOK, billsview.Bills(handlers.Locale(c), d))
}

// billGroups puts the bills in groups by the tags they carry (an issued bill's as of its
// issue; one group when none has tags) and sums them, each project once in the total.
func billGroups(bills []billing.Bill) ([]billsview.BillGroup, billsview.BillRow) {
	var total billsview.BillRow
	rows := make(map[string]billsview.BillRow, len(bills))
	for _, b := range bills {
		r := billRow(b)
		rows[b.Project] = r
		total.NominalS += r.NominalS
		total.EffectiveS += r.EffectiveS
		total.IdleS += r.IdleS
		total.TotalFen = billing.AddFen(total.TotalFen, r.TotalFen)
	}
	if !slices.ContainsFunc(bills, func(b billing.Bill) bool { return len(b.Tags) > 0 }) {
		g := billsview.BillGroup{Subtotal: total}
		for _, b := range bills {
			g.Rows = append(g.Rows, rows[b.Project])
		}
		return []billsview.BillGroup{g}, total
	}
	var out []billsview.BillGroup
	for _, tg := range billing.GroupByTag(bills) {
		g := billsview.BillGroup{Tag: tg.Tag, Subtotal: billsview.BillRow{NominalS: tg.NominalS, EffectiveS: tg.EffectiveS,
			IdleS: tg.IdleS, TotalFen: tg.TotalFen}}
		for _, name := range tg.Projects {
			g.Rows = append(g.Rows, rows[name])
		}
		out = append(out, g)
	}
	return out, total
}

// issueOffer is what "issue all" would issue of bills: the unissued ones with every price,
// their total, and how many more lack a price; nil when every bill is issued.
func issueOffer(bills []billing.Bill) *billsview.IssueOffer {
	var o billsview.IssueOffer
	for _, b := range bills {
		switch {
		case b.Issued != nil:
		case len(b.MissingPrices) > 0:
			o.Unpriced++
		default:
			o.Projects++
			o.TotalFen = billing.AddFen(o.TotalFen, b.TotalFen)
		}
	}
	if o.Projects+o.Unpriced == 0 {
		return nil
	}
	return &o
}

// billRow is a bill's row in the list.
func billRow(b billing.Bill) billsview.BillRow {
	r := billsview.BillRow{Project: b.Project, NominalS: b.NominalS, EffectiveS: b.EffectiveS, IdleS: b.Held.Idle,
		TotalFen: b.TotalFen, Lines: len(b.Lines), MissingPrices: b.MissingPrices}
	if b.Issued != nil {
		at := b.Issued.At
		r.Issued = &at
	}
	return r
}

// BillPage shows a project's bill of a month, with the issue button and the adjustment
// form for finance and admins; its lines and its idle time a page of billPageRows at a time
// (?page=, ?idle_page=). GET /bills/:project/:month.
func (h *Handler) BillPage(c echo.Context) error {
	p, month, err := h.billOf(c)
	if err != nil {
		return err
	}
	notice := ""
	switch q := c.QueryParams(); {
	case q.Has("issued"):
		notice = billsview.IssuedNotice(handlers.Locale(c), p.Name, month)
	case q.Has("adjusted"):
		notice = billsview.AdjustedNotice(handlers.Locale(c), p.Name, month)
	}
	return h.renderBill(c, http.StatusOK, p, month, notice, "")
}

// renderBill renders the bill page with a notice or an error.
func (h *Handler) renderBill(c echo.Context, status int, p models.Project, month, notice, errMsg string) error {
	d, err := h.billPageData(c, p, month)
	if err != nil {
		return err
	}
	d.Notice, d.Error = notice, errMsg
	return handlers.Render(c, status, billsview.Bill(handlers.Locale(c), d))
}

// renderBillForm renders the bill page with a refused adjustment form.
func (h *Handler) renderBillForm(c echo.Context, status int, p models.Project, month string, form billsview.AdjustForm) error {
	d, err := h.billPageData(c, p, month)
	if err != nil {
		return err
	}
	d.Adjust = form
	return handlers.Render(c, status, billsview.Bill(handlers.Locale(c), d))
}

// billPageData is the bill page: the bill, what the viewer may do with it, its adjustments
// with who made them, and the price versions that priced it, all from the bill itself (an
// issued one's frozen body). A bill frozen before FrozenFormat 2 names its adjustments by id
// only; they are read from the store, where they never change.
func (h *Handler) billPageData(c echo.Context, p models.Project, month string) (billsview.BillData, error) {
	ctx := c.Request().Context()
	now := h.Now()
	linesPage, err := pageParam(c, "page")
	if err != nil {
		return billsview.BillData{}, err
	}
	idlePage, err := pageParam(c, "idle_page")
	if err != nil {
		return billsview.BillData{}, err
	}
	b, err := billing.ProjectBill(ctx, h.store, p.ID, month, now)
	if err != nil {
		return billsview.BillData{}, billError(err)
	}
	loc, err := time.LoadLocation(b.TimeZone)
	if err != nil {
		loc = time.UTC
	}
	d := billData(b, loc)
	d.Lines, d.LinesPage = pageOf(d.Lines, linesPage)
	d.Idle, d.IdlePage = pageOf(d.Idle, idlePage)
	who := handlers.Who(c)
	d.MonthOpen = b.PeriodEnd.After(now)
	d.CanIssue = who.SeesAllBills() && !who.ReadOnly && b.Issued == nil && !d.MonthOpen
	d.CanAdjust = who.SeesAllBills() && !who.ReadOnly && b.Issued == nil
	d.CanSetPrices = who.Admin() && !who.ReadOnly
	adjs := b.Adjustments
	if b.Issued != nil && b.Format < billing.FrozenFormat && len(b.AdjustmentIDs) > 0 {
		rows, err := h.store.Adjustments(ctx, p.ID, month)
		if err != nil {
			return d, err
		}
		for _, a := range rows {
			if slices.Contains(b.AdjustmentIDs, a.ID) {
				adjs = append(adjs, billing.AdjustmentRecordOf(a))
			}
		}
	}
	for _, a := range adjs {
		d.Adjustments = append(d.Adjustments, billsview.BillAdjustment{AmountFen: a.AmountFen, Reason: a.Reason,
			CorrectsMonth: a.CorrectsMonth, By: a.By, At: a.At.In(loc)})
	}
	return d, nil
}

// billData is a bill as the page shows it, times in loc.
func billData(b billing.Bill, loc *time.Location) billsview.BillData {
	d := billsview.BillData{Project: b.Project, Month: b.Month, TimeZone: b.TimeZone, Mode: b.Mode,
		PeriodStart: b.PeriodStart.In(loc), PeriodEnd: b.PeriodEnd.In(loc), AsOf: b.AsOf.In(loc),
		NominalS: b.NominalS, EffectiveS: b.EffectiveS, TotalFen: b.TotalFen, MissingPrices: b.MissingPrices,
		Held: billsview.BillHeld{SetupS: b.Held.Setup, ActiveS: b.Held.Active, ServingS: b.Held.Serving, LowUtilS: b.Held.LowUtil, IdleS: b.Held.Idle,
			NoDataS: b.Held.NoData, RerunS: b.Held.Rerun, WastedS: b.WastedS, RerunFen: b.RerunFen,
			TrialS: b.Held.Trial, TrialFen: b.TrialFen}}
	for _, l := range b.Lines {
		d.Lines = append(d.Lines, billsview.BillLine{TaskID: l.TaskID, Task: l.Task, Owner: l.Owner, Ending: l.Ending, Spec: l.Spec, Region: l.Region,
			Pricing: l.Pricing, SizeClass: l.SizeClass, NominalS: l.NominalS, EffectiveS: l.EffectiveS, IdleS: l.Idle,
			LowUtilS: l.LowUtil, SetupS: l.Setup, NoDataS: l.NoData, RerunS: l.Rerun, TrialS: l.Trial,
			EstimatedS: l.EstimatedS, Units: l.Units, RateFen: l.RateFen, AmountFen: l.AmountFen, Note: l.Note})
	}
	for _, it := range b.Items {
		v := billsview.BillItem{Kind: it.Kind, Spec: it.Spec, NominalS: it.NominalS, EffectiveS: it.EffectiveS,
			IdleS: it.IdleS, RateFen: it.RateFen, AmountFen: it.AmountFen, Pct: it.Pct, Note: it.Note}
		if it.Kind == billing.ItemBookingUnused {
			v.Note = "" // the page names the share in the catalog's words
		}
		d.Items = append(d.Items, v)
	}
	for _, k := range b.Bookings {
		d.Bookings = append(d.Bookings, billsview.BillBooking{ReservationID: k.ReservationID, Spec: k.Spec, GPUs: k.GPUs,
			ChargePct: k.ChargePct, StartsAt: k.StartsAt.In(loc), EndsAt: k.EndsAt.In(loc), BookedS: k.BookedS,
			UsedS: k.UsedS, UnusedS: k.UnusedS})
	}
	for _, m := range b.Models {
		d.Models = append(d.Models, billsview.BillModel{ServiceID: m.ServiceID, Service: m.Service, Model: m.Model,
			NominalS: m.NominalS, EffectiveS: m.EffectiveS, IdleS: m.IdleS, AmountFen: m.AmountFen})
	}
	d.Pipelines = stageCosts(b.Pipelines)
	for _, x := range b.Idle {
		d.Idle = append(d.Idle, billsview.BillIdle{TaskID: x.TaskID, Task: x.Task, Owner: x.Owner, Spec: x.Spec, IdleS: x.IdleS,
			LowUtilS: x.LowUtilS, NominalS: x.NominalS})
	}
	if pk := b.Package; pk != nil {
		d.Package = &billsview.BillPackage{Spec: pk.Spec, Cards: pk.Cards, FeeFen: pk.FeeFen, OverflowRateFen: pk.OverflowRateFen,
			CoveredS: pk.CoveredS, UsedS: pk.UsedS, BeyondS: pk.BeyondS, UnusedS: pk.UnusedS}
	}
	for _, v := range b.PriceVersions {
		d.PriceVersions = append(d.PriceVersions, billsview.BillPriceVersion{Spec: v.Spec, Own: v.Own, FromMonth: v.FromMonth,
			RateFen: v.RateFen, OverflowRateFen: v.OverflowRateFen})
	}
	if b.Issued != nil {
		d.Issued = &billsview.BillIssued{At: b.Issued.At.In(loc), By: b.Issued.By, SHA256: b.Issued.SHA256}
	}
	return d
}

// urlPath escapes a name for a path segment.
func urlPath(name string) string { return url.PathEscape(name) }
