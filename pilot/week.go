package pilot

import (
	"context"
	"slices"
	"time"
)

// WeekChanges measures the pool setting changes made in [from, to), as of now, oldest first:
// each as its change page measures it (LoadChange, ComputeChange), so the weekly report and
// the page read one computation. A change less than MinAfter old is listed not Ready.
func WeekChanges(ctx context.Context, src ChangeSource, from, to, now time.Time) ([]Change, error) {
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
			in, err := LoadChange(ctx, src, p.Name, v.Version, now)
			if err != nil {
				return nil, err
			}
			c, err := ComputeChange(in)
			if err != nil {
				return nil, err
			}
			out = append(out, c)
		}
	}
	slices.SortStableFunc(out, func(a, b Change) int { return a.At.Compare(b.At) })
	return out, nil
}
