package pilot

import (
	"context"
	"slices"
	"time"

	"kashi/billing"
	"kashi/models"
)

// A price change is a row of the price list: a spec's rate from a month on, for one project
// or for the default list, after the row before it of the same project and spec. Prices hold
// by month and bills are monthly, so its periods are the bills': the month before it against
// its own month as far as it has run (every figure a sum of the bills' lines). It has no
// replay: the work is the same, only the rate changed, so its effect is its month's ledger
// priced at the old rates against the new.

// PriceRates are a price change's spec, the project it prices ("" for the default list),
// the month it holds from and the rates (fen per card-hour) before and after it.
type PriceRates struct {
	Spec, Project, FromMonth       string
	OldRateFen, NewRateFen         int64
	OldOverflowFen, NewOverflowFen int64
}

// priceInput is what a price change's measure reads: the row and the one before it, the
// projects the row prices (those without a price of their own for the spec, for the default
// list), and the change's month and the month before.
type priceInput struct {
	row, old      models.Price
	project       string
	from, at      time.Time
	priced        map[int64]bool
	prev, month   billing.Month
	before, after billing.Result
	// repriced is the change's month's bills computed with the old rates, current its bills
	// computed with the new, both from one read of its ledger.
	repriced, current billing.Result
	tasks             []models.TaskSpan
	projects          map[int64]string
	asOf              time.Time
}

// priceChangeAt reads the price row ref names, the row before it, and how long its month
// has run as of now (in whole hours, up to the month's end or the next price of the same
// project and spec).
func priceChangeAt(ctx context.Context, src ChangeSource, ref Ref, now time.Time) (ChangeInput, time.Duration, error) {
	hist, err := src.PriceHistory(ctx)
	if err != nil {
		return ChangeInput{}, 0, err
	}
	i := slices.IndexFunc(hist, func(p models.Price) bool { return p.ID == ref.ID })
	if i < 0 {
		return ChangeInput{}, 0, ErrNoChange
	}
	row := hist[i]
	loc, err := billing.Location(ctx, src)
	if err != nil {
		return ChangeInput{}, 0, err
	}
	month, err := billing.ParseMonth(row.FromMonth)
	if err != nil {
		return ChangeInput{}, 0, err
	}
	at, end := month.Bounds(loc)
	pi := priceInput{row: row, at: at, month: month}
	found := false
	for _, p := range hist { // newest month first per project and spec
		if p.ProjectID != row.ProjectID || p.Spec != row.Spec {
			continue
		}
		if p.FromMonth < row.FromMonth && !found {
			pi.old, found = p, true
		}
		if next, err := billing.ParseMonth(p.FromMonth); err == nil && p.FromMonth > row.FromMonth {
			if from, _ := next.Bounds(loc); from.Before(end) {
				end = from
			}
		}
	}
	if !found {
		return ChangeInput{}, 0, ErrNoChange
	}
	if row.ProjectID != 0 {
		ps, err := src.Projects(ctx)
		if err != nil {
			return ChangeInput{}, 0, err
		}
		if j := slices.IndexFunc(ps, func(p models.Project) bool { return p.ID == row.ProjectID }); j >= 0 {
			pi.project = ps[j].Name
		}
	}
	pi.prev = billing.MonthOf(at.Add(-time.Second), loc)
	pi.from, _ = pi.prev.Bounds(loc)
	return ChangeInput{Ref: ref, Price: pi}, min(end.Sub(at), now.Sub(at).Truncate(time.Hour)), nil
}

// loadPrice reads a price change's bills: the month before it as the bills show it (issued,
// or computed now), its own month as of span after its start, and its month again priced at
// the old rates.
func loadPrice(ctx context.Context, src ChangeSource, in *ChangeInput, span time.Duration) error {
	pi := &in.Price
	pi.asOf = pi.at.Add(span)
	ps, err := src.Projects(ctx)
	if err != nil {
		return err
	}
	own, err := src.Prices(ctx, pi.month.String())
	if err != nil {
		return err
	}
	pi.projects, pi.priced = map[int64]string{}, map[int64]bool{}
	for _, p := range ps {
		pi.projects[p.ID] = p.Name
		mine := func(q models.Price) bool { return q.ProjectID == p.ID && q.Spec == pi.row.Spec }
		if pi.row.ProjectID == p.ID || pi.row.ProjectID == 0 && !slices.ContainsFunc(own, mine) {
			pi.priced[p.ID] = true
		}
	}
	if pi.before, err = billing.MonthBills(ctx, src, pi.prev.String(), pi.at); err != nil {
		return err
	}
	if pi.after, err = billing.MonthBills(ctx, src, pi.month.String(), pi.asOf); err != nil {
		return err
	}
	bin, err := billing.Load(ctx, src, billing.Request{Month: pi.month, AsOf: pi.asOf})
	if err != nil {
		return err
	}
	if pi.current, err = billing.Compute(bin); err != nil {
		return err
	}
	bin.Prices = slices.Clone(bin.Prices)
	for i, p := range bin.Prices {
		if p.ID == pi.row.ID {
			bin.Prices[i].RateFen, bin.Prices[i].OverflowRateFen = pi.old.RateFen, pi.old.OverflowRateFen
		}
	}
	if pi.repriced, err = billing.Compute(bin); err != nil {
		return err
	}
	spans, err := src.TaskSpans(ctx, pi.from.Add(-spanLookback), pi.asOf)
	if err != nil {
		return err
	}
	for _, t := range spans {
		if t.Spec == pi.row.Spec {
			pi.tasks = append(pi.tasks, t)
		}
	}
	return nil
}

// computePrice measures a price change: the spec's lines of the priced projects' bills
// before and after, and the month after at the old rates against the new.
func computePrice(in ChangeInput) (Change, error) {
	pi := in.Price
	c := Change{Ref: in.Ref, At: pi.at, Ready: in.Ready, Price: PriceRates{Spec: pi.row.Spec, Project: pi.project,
		FromMonth: pi.row.FromMonth, OldRateFen: pi.old.RateFen, NewRateFen: pi.row.RateFen,
		OldOverflowFen: pi.old.OverflowRateFen, NewOverflowFen: pi.row.OverflowRateFen}}
	if !in.Ready {
		return c, nil
	}
	c.From, c.To = pi.from, pi.asOf
	c.Before = pi.side(pi.before, c.From, pi.at)
	c.After = pi.side(pi.after, pi.at, pi.asOf)
	old, cur := pi.side(pi.repriced, pi.at, pi.asOf), pi.side(pi.current, pi.at, pi.asOf)
	c.Counter = Counterfactual{Tasks: c.After.Tasks, OldFen: old.Cost.ElasticFen, NewFen: cur.Cost.ElasticFen,
		SavedFen: old.Cost.ElasticFen - cur.Cost.ElasticFen, OldIdleS: cur.IdleS, NewIdleS: cur.IdleS,
		OldMeanWaitS: cur.MeanWaitS, NewMeanWaitS: cur.MeanWaitS}
	return c, nil
}

// side is a price change's period [from, to) as bills res show it: the spec's lines of the
// priced projects (their cost in Cost.ElasticFen, their held, effective and idle card time)
// and the waits of the spec's tasks of those projects submitted in the period.
func (pi priceInput) side(res billing.Result, from, to time.Time) Review {
	r := Review{Spec: pi.row.Spec, Project: pi.project, From: from, To: to, Cost: Cost{RateFen: pi.row.RateFen}}
	for _, b := range res.Bills {
		if !pi.priced[b.ProjectID] {
			continue
		}
		for _, l := range b.Lines {
			if l.Spec == pi.row.Spec {
				r.Cost.ElasticFen += l.AmountFen
				r.HeldS += l.NominalS
				r.EffectiveS += l.EffectiveS
				r.IdleS += l.Idle
			}
		}
	}
	names := map[string]bool{}
	for id := range pi.priced {
		names[pi.projects[id]] = true
	}
	r.waits(Input{From: from, To: to, Tasks: pi.tasks}, func(p string) bool { return names[p] })
	return r
}
