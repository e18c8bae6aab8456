package pilot

import (
	"context"
	"slices"
	"time"
)

// Measure measures a change as of now: MeasureChange, or a ChangeCache's Measure.
type Measure func(ctx context.Context, src ChangeSource, pool string, version int, now time.Time) (Change, error)

// WeekChanges measures the pool setting changes made in [from, to), as of now, oldest first,
// through measure: each as its change page measures it (MeasureChange), so the weekly report,
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
			c, err := measure(ctx, src, p.Name, v.Version, now)
			if err != nil {
				return nil, err
			}
			out = append(out, c)
		}
	}
	slices.SortStableFunc(out, func(a, b Change) int { return a.At.Compare(b.At) })
	return out, nil
}
