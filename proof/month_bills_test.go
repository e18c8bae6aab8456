package proof

import (
	"context"
	"testing"
	"time"

	"kashi/billing"
	"kashi/models"
)

// monthsBetween are the billing months that [from, to] touches.
func monthsBetween(ctx context.Context, t *testing.T, store *models.Store, from, to time.Time) []billing.Month {
	loc, err := billing.Location(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	var out []billing.Month
	for m := billing.MonthOf(from, loc); ; m = m.Next() {
		out = append(out, m)
		if m == billing.MonthOf(to, loc) {
			return out
		}
	}
}

// monthBilled checks month's bills as of asOf (the run's last moment) against the ledger:
// every task is billed for exactly the card-seconds its allocations held in the month (an
// open allocation until asOf, or its lost node's last sign of life), each card-hour and
// overflow line at the rate in force times its hours, each bill's items adding up to its
// total; and the utilization reports of the month's weeks add up to the bills (weeksOfMonth).
func monthBilled(ctx context.Context, t *testing.T, store *models.Store, l *ledger, month billing.Month, asOf time.Time, v violations) {
	loc, err := billing.Location(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	from, to := month.Bounds(loc)
	res, err := billing.MonthBills(ctx, store, month.String(), asOf)
	if err != nil {
		t.Fatalf("bills of %s: %v", month, err)
	}
	upTo := minTime(asOf, to)
	billed := map[int64]int64{}
	byProject := map[string]int64{}
	var total int64
	for _, b := range res.Bills {
		byProject[b.Project] = b.NominalS
		total += b.NominalS
		for _, line := range b.Lines {
			billed[line.TaskID] += line.NominalS
		}
	}
	var held int64
	for _, tk := range l.tasks {
		var s int64
		for _, a := range tk.allocs {
			end := upTo
			if a.End != nil {
				end = minTime(*a.End, to)
			} else if n := l.nodes[a.NodeID]; n.State == models.NodeLost {
				end = minTime(end, n.lastSeen)
			}
			if st := maxTime(a.Start, from); end.After(st) {
				s += int64(end.Sub(st) / time.Second)
			}
		}
		held += s
		if billed[tk.ID] != s {
			v.add("bills differ from the ledger", "%s: task %d held %d card-seconds and is billed %d", month, tk.ID, s, billed[tk.ID])
		}
	}
	if held == 0 {
		v.add("bills differ from the ledger", "no card held in %s", month)
	}
	pricedAsInForce(ctx, t, store, res.Bills, month, v)
	weeksAddUp(ctx, t, store, month, asOf, byProject, v)
	t.Logf("%s: %d bills, %.1f card-hours held and billed, %d fen", month, len(res.Bills), float64(total)/3600, billTotal(res.Bills))
}

func billTotal(bills []billing.Bill) (fen int64) {
	for _, b := range bills {
		fen += b.TotalFen
	}
	return fen
}

// pricedAsInForce: a card-hour line is priced at the project's (else the default) rate of
// its spec in force in the month, an overflow line at its quota's contract rate (of the spec,
// else of all specs) or else the price's overflow rate, each for its hours; a bill's items
// add up to its total.
func pricedAsInForce(ctx context.Context, t *testing.T, store *models.Store, bills []billing.Bill, month billing.Month, v violations) {
	prices, err := store.Prices(ctx, month.String())
	if err != nil {
		t.Fatal(err)
	}
	type key struct {
		project int64
		spec    string
	}
	rates := map[key]models.Price{}
	for _, p := range prices {
		rates[key{p.ProjectID, p.Spec}] = p
	}
	quotas, err := store.Quotas(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	contract := map[key]int64{}
	for _, q := range quotas {
		if q.OverflowRateFen > 0 {
			contract[key{q.ProjectID, q.Spec}] = q.OverflowRateFen
		}
	}
	for _, b := range bills {
		var items int64
		for _, it := range b.Items {
			items += it.AmountFen
		}
		if items != b.TotalFen {
			v.add("not priced as in force", "%s %s: items add up to %d fen, the total is %d", month, b.Project, items, b.TotalFen)
		}
		for _, line := range b.Lines {
			p, ok := rates[key{b.ProjectID, line.Spec}]
			if !ok {
				p = rates[key{0, line.Spec}]
			}
			overflow := p.OverflowRateFen
			for _, spec := range []string{"", line.Spec} {
				if r, ok := contract[key{b.ProjectID, spec}]; ok {
					overflow = r
				}
			}
			want := map[string]int64{billing.PricingCardHour: p.RateFen, billing.PricingOverflow: overflow}
			rate, priced := want[line.Pricing]
			if !priced {
				continue
			}
			if line.RateFen != rate || line.AmountFen != billing.Amount(line.NominalS, rate) {
				v.add("not priced as in force", "%s task %d (%s, %s): %d s at %d fen/h is %d fen; want %d fen/h, %d fen",
					month, line.TaskID, line.Spec, line.Pricing, line.NominalS, line.RateFen, line.AmountFen, rate, billing.Amount(line.NominalS, rate))
			}
		}
	}
}

// weeksAddUp: the reports of the month's weeks add up, project by project, to the month's
// bills, all as of asOf. A week across the month's first or last day counts with its days in
// the month: its report over the part inside the month; that part and the parts outside add
// up to the whole week's report (WeekReport, as the report page and the weekly message
// compute it).
func weeksAddUp(ctx context.Context, t *testing.T, store *models.Store, month billing.Month, asOf time.Time, billed map[string]int64, v violations) {
	loc, err := billing.Location(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	from, to := month.Bounds(loc)
	upTo := minTime(asOf, to)
	sum := map[string]int64{}
	weeks := 0
	for w := billing.WeekOf(from, loc); ; w = w.Next() {
		wFrom, wTo := w.Bounds(loc)
		if !wFrom.Before(upTo) {
			break
		}
		weeks++
		in := window(ctx, t, store, maxTime(wFrom, from), minTime(wTo, upTo), asOf)
		for _, u := range in.Projects {
			sum[u.Key] += u.NominalS
		}
		whole, err := billing.WeekReport(ctx, store, w.String(), nil, asOf)
		if err != nil {
			t.Fatalf("report of %s: %v", w, err)
		}
		parts := in.Total.NominalS
		if wFrom.Before(from) {
			parts += window(ctx, t, store, wFrom, from, asOf).Total.NominalS
		}
		if end := minTime(wTo, asOf); to.Before(end) {
			parts += window(ctx, t, store, to, end, asOf).Total.NominalS
		}
		if parts != whole.Total.NominalS {
			v.add("weeks do not add up", "%s: its parts hold %d card-seconds, its report %d", w, parts, whole.Total.NominalS)
		}
	}
	for project, s := range billed {
		if sum[project] != s {
			v.add("weeks do not add up", "%s %s: the weeks' reports hold %d card-seconds, the bill %d", month, project, sum[project], s)
		}
	}
	for project, s := range sum {
		if _, ok := billed[project]; !ok && s != 0 {
			v.add("weeks do not add up", "%s %s: the weeks' reports hold %d card-seconds and there is no bill", month, project, s)
		}
	}
	t.Logf("%s: the reports of its %d weeks add up to its bills", month, weeks)
}

// window is the utilization report of [from, to) as of asOf, over every project.
func window(ctx context.Context, t *testing.T, store *models.Store, from, to, asOf time.Time) billing.Report {
	in, err := billing.LoadWindow(ctx, store, from, to, asOf, nil)
	if err != nil {
		t.Fatalf("load the window %s–%s: %v", from, to, err)
	}
	r, err := billing.Utilization(in)
	if err != nil {
		t.Fatalf("report of %s–%s: %v", from, to, err)
	}
	return r
}
