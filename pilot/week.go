package pilot

import (
	"context"
	"errors"
	"slices"
	"time"

	"kashi/billing"
)

// Measure measures a change as of now: MeasureChange, or a ChangeCache's Measure.
type Measure func(ctx context.Context, src ChangeSource, ref Ref, now time.Time) (Change, error)

// WeekChanges measures the changes made in [from, to) as of now, oldest first (the pools'
// setting changes, the quotas' changes, the projects' reclaim overrides' changes, and the prices that hold from a month starting in
// it: a price changes at its month's start in the billing time zone) through measure: each as its change page
// measures it (MeasureChange), so the weekly report,
// its page and the change's page read one computation. A change less than MinAfter old is
// listed not Ready.
func WeekChanges(ctx context.Context, src ChangeSource, measure Measure, from, to, now time.Time) ([]Change, error) {
	pools, err := src.ConfiguredPools(ctx)
	if err != nil {
		return nil, err
	}
	var out []Change
	for _, p := range pools {
		vs, err := src.PoolConfigVersions(ctx, p.Name)
		if err != nil {
			return nil, err
		}
		for _, v := range vs {
			if v.At.Before(from) || !v.At.Before(to) || v.Before == "" || v.Before == "null" {
				continue
			}
			c, err := measure(ctx, src, PoolRef(p.Name, v.Version), now)
			if err != nil {
				return nil, err
			}
			out = append(out, c)
		}
	}
	prices, err := src.PriceHistory(ctx)
	if err != nil {
		return nil, err
	}
	loc, err := billing.Location(ctx, src)
	if err != nil {
		return nil, err
	}
	for _, p := range prices {
		m, err := billing.ParseMonth(p.FromMonth)
		if err != nil {
			return nil, err
		}
		if at, _ := m.Bounds(loc); at.Before(from) || !at.Before(to) {
			continue
		}
		c, err := measure(ctx, src, PriceRef(p.ID), now)
		if errors.Is(err, ErrNoChange) { // a spec's first price changes nothing
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	edits, err := src.QuotaEdits(ctx, 0, from, to)
	if err != nil {
		return nil, err
	}
	for _, e := range edits {
		if e.Before == nil { // a project's first quota on a spec changes nothing
			continue
		}
		c, err := measure(ctx, src, QuotaRef(e.ProjectID, e.ID), now)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	reclaims, err := src.ReclaimEdits(ctx, 0, from, to)
	if err != nil {
		return nil, err
	}
	for _, e := range reclaims {
		c, err := measure(ctx, src, ReclaimRef(e.ProjectID, e.ID), now)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	slices.SortStableFunc(out, func(a, b Change) int { return a.At.Compare(b.At) })
	return out, nil
}
