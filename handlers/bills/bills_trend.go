package bills

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"time"

	"kashi/billing"
	"kashi/handlers"
	billsview "kashi/views/bills"
)

// The cost chart of the bills page.
const (
	// trendMonths is how many months it spans, the current month last.
	trendMonths = 12
	// trendProjects is how many projects it draws on their own; the rest are one series.
	trendProjects = 6
)

// viewerBills are the bills of month that p sees: every project's with the month's pool
// idle for finance and admins, their own projects' for members; issued bills as frozen, the
// others computed now.
func (h *Handler) viewerBills(ctx context.Context, p *handlers.Principal, month string, now time.Time) ([]billing.Bill, []billing.PoolIdle, error) {
	if p.SeesAllBills() {
		res, err := billing.MonthBills(ctx, h.store, month, now)
		if err != nil {
			return nil, nil, billError(err)
		}
		return res.Bills, res.PoolIdle, nil
	}
	ps, err := h.store.Projects(ctx)
	if err != nil {
		return nil, nil, err
	}
	var bills []billing.Bill
	for _, pj := range ps {
		if !p.SeesBills(pj.ID) {
			continue
		}
		b, err := billing.ProjectBill(ctx, h.store, pj.ID, month, now)
		if err != nil {
			return nil, nil, billError(err)
		}
		bills = append(bills, b)
	}
	slices.SortStableFunc(bills, billing.ByProject)
	return bills, nil, nil
}

// issuedBills are the issued bills of month that p sees, as frozen.
func (h *Handler) issuedBills(ctx context.Context, p *handlers.Principal, month string) ([]billing.Bill, error) {
	ibs, err := h.store.IssuedBills(ctx, month)
	if err != nil {
		return nil, err
	}
	var out []billing.Bill
	for _, ib := range ibs {
		if !p.SeesBills(ib.ProjectID) {
			continue
		}
		b, err := billing.Frozen(ib)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// costTrend is the bills page's charts for p: each project's cost per month over the last
// trendMonths months up to current, less its idle part (billing.IdleFen), which is a series
// of its own, and each project's cost this month against last month. The current and the
// last month are the bills as the page shows them (issued, else computed now; known holds
// months the page computed already); earlier months count issued bills only, so that the
// chart reads the ledger for two months, not twelve. Leading months without a charge are
// left out.
func (h *Handler) costTrend(ctx context.Context, p *handlers.Principal, current billing.Month, known map[string][]billing.Bill,
	now time.Time, loc *time.Location) (billsview.CostTrend, error) {
	var months []billing.Month
	for m := current; len(months) < trendMonths && m.Year >= billing.MinYear; {
		months = append(months, m)
		from, _ := m.Bounds(loc)
		m = billing.MonthOf(from.Add(-time.Second), loc)
	}
	slices.Reverse(months)
	t := billsview.CostTrend{ThisMonth: current.String()}
	if len(months) > 1 {
		t.LastMonth = months[len(months)-2].String()
	}
	var perMonth [][]billing.Bill
	for _, m := range months {
		ms := m.String()
		live := ms == t.ThisMonth || ms == t.LastMonth
		bills, ok := known[ms]
		var err error
		switch {
		case live && ok:
		case live:
			bills, _, err = h.viewerBills(ctx, p, ms, now)
		default:
			bills, err = h.issuedBills(ctx, p, ms)
		}
		if err != nil {
			return billsview.CostTrend{}, err
		}
		if len(t.Months) == 0 && !hasCharge(bills) && !live {
			continue
		}
		t.Months = append(t.Months, ms)
		perMonth = append(perMonth, bills)
	}
	trendSeries(&t, perMonth)
	return t, nil
}

// trendSeries fills t's series, idle, totals and lines from each month's bills.
func trendSeries(t *billsview.CostTrend, perMonth [][]billing.Bill) {
	n := len(t.Months)
	t.IdleFen, t.TotalFen = make([]int64, n), make([]int64, n)
	series := map[string]*billsview.CostSeries{}
	weight := map[string]int64{} // a project's positive costs over the months: the series' order
	lines := map[string]*billsview.CostLine{}
	for i, bills := range perMonth {
		for _, b := range bills {
			s := series[b.Project]
			if s == nil {
				s = &billsview.CostSeries{Project: b.Project, Fen: make([]int64, n)}
				series[b.Project] = s
			}
			idle := billing.IdleFen(b)
			s.Fen[i] = billing.AddFen(s.Fen[i], billing.AddFen(b.TotalFen, -idle))
			weight[b.Project] = billing.AddFen(weight[b.Project], max(s.Fen[i], 0))
			t.IdleFen[i] = billing.AddFen(t.IdleFen[i], idle)
			t.TotalFen[i] = billing.AddFen(t.TotalFen[i], b.TotalFen)
			if (t.Months[i] == t.ThisMonth || t.Months[i] == t.LastMonth) && b.TotalFen != 0 {
				ln := lines[b.Project]
				if ln == nil {
					ln = &billsview.CostLine{Project: b.Project}
					lines[b.Project] = ln
				}
				if t.Months[i] == t.ThisMonth {
					ln.NowFen = b.TotalFen
				} else {
					ln.LastFen = b.TotalFen
				}
			}
		}
	}
	names := slices.SortedFunc(maps.Keys(series), func(a, b string) int { return cmp.Or(cmp.Compare(weight[b], weight[a]), cmp.Compare(a, b)) })
	for i, name := range names {
		if i < trendProjects || len(names) == trendProjects+1 {
			t.Series = append(t.Series, *series[name])
			continue
		}
		if i == trendProjects {
			t.Series = append(t.Series, billsview.CostSeries{Other: true, Fen: make([]int64, n)})
		}
		other := &t.Series[trendProjects]
		for m, f := range series[name].Fen {
			other.Fen[m] = billing.AddFen(other.Fen[m], f)
		}
	}
	for _, ln := range lines {
		ln.DiffFen = billing.AddFen(ln.NowFen, -ln.LastFen)
		t.Lines = append(t.Lines, *ln)
	}
	slices.SortFunc(t.Lines, func(a, b billsview.CostLine) int {
		return cmp.Or(cmp.Compare(b.NowFen, a.NowFen), cmp.Compare(b.LastFen, a.LastFen), cmp.Compare(a.Project, b.Project))
	})
}

// hasCharge reports whether any bill charges something.
func hasCharge(bills []billing.Bill) bool {
	return slices.ContainsFunc(bills, func(b billing.Bill) bool { return b.TotalFen != 0 })
}
