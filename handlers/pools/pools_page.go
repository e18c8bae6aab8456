package pools

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
	"kashi/models"
	"kashi/phrase"
	"kashi/views"
	poolsview "kashi/views/pools"
)

// poolPageEvents is how many scaling events the pools page shows per pool.
const poolPageEvents = 100

// PoolsPage shows every configured pool: its size against demand over ?range= (1h, 6h, 24h,
// 7d), every recent scaling event in words and why it did not act. With HX-Request only the
// part that refreshes itself comes back. GET /pools.
func (h *Handler) PoolsPage(c echo.Context) error {
	ctx := c.Request().Context()
	rng, span := poolsview.RangeSpan(c.QueryParam("range"))
	now := h.Now().In(h.Loc())
	pools, err := h.poolInfos(ctx, poolPageEvents)
	if err != nil {
		return err
	}
	d := poolsview.PoolsData{Now: now, Range: rng, From: now.Add(-span), CanEdit: handlers.Who(c).Admin(),
		CanReview: handlers.Who(c).Allows(handlers.Lead)}
	bookings, err := h.poolBookings(ctx, pools, d.From, now)
	if err != nil {
		return err
	}
	for _, p := range pools {
		v := poolsview.PoolView{Name: p.Name, Spec: p.Spec, Provider: p.Provider, Flavor: p.Config.Flavor,
			Attrs:  views.PoolAttrs(handlers.PoolAttributes(p.Name, p.Config)),
			Region: regionOf(p.Config), GPUsPerNode: p.Config.GPUsPerNode, Enabled: p.Config.Enabled, Size: p.Size, Desired: p.Desired,
			MinNodes: p.Config.MinNodes, MaxNodes: p.Config.MaxNodes, Booting: len(p.Booting), State: p.State,
			Version: p.Version, UpdatedAt: p.UpdatedAt, UpdatedBy: p.UpdatedBy, StatusAt: p.StatusAt,
			HourlyPriceFen: p.PriceFen, PriceSource: p.PriceSource, Bookings: bookings[p.Name], Boot: bootView(handlers.Locale(c), p),
			Cluster: clusterView(p.Cluster)}
		for _, n := range p.Nodes {
			v.Nodes = append(v.Nodes, poolsview.PoolNodeView{Hostname: n.Hostname, State: n.State})
		}
		for _, s := range p.Skips {
			v.Skips = append(v.Skips, poolsview.PoolSkipView{Reason: s.Reason, Detail: handlers.Locale(c).SayText(s.Detail)})
		}
		for _, e := range p.Events {
			v.Events = append(v.Events, poolsview.ScaleEventView{At: e.At, Pool: p.Name, Kind: e.Kind, From: e.FromSize,
				To: e.ToSize, Reason: e.Reason, Detail: handlers.Locale(c).SayText(e.Detail), HourlyCostFen: e.HourlyCostFen})
		}
		sizes, err := h.store.PoolSizes(ctx, p.ID, d.From, now)
		if err != nil {
			return err
		}
		for _, s := range sizes {
			v.Samples = append(v.Samples, poolsview.PoolSample{At: s.At, Size: s.Size, Desired: s.Desired, DemandGPUs: s.DemandGPUs})
		}
		d.Pools = append(d.Pools, v)
	}
	c.Response().Header().Add("Vary", "HX-Request, Accept-Language, Cookie")
	c.Response().Header().Set(echo.HeaderCacheControl, "no-cache")
	l := handlers.Locale(c)
	if handlers.IsHTMX(c) {
		return handlers.Render(c, http.StatusOK, poolsview.PoolsLive(l, d))
	}
	return handlers.Render(c, http.StatusOK, poolsview.Pools(l, d))
}

// poolBookings are the reservations overlapping the chart's range or the coming days, by
// pool: each on the pools of its spec (in its region when it names one), held from its lead
// time.
func (h *Handler) poolBookings(ctx context.Context, pools []poolInfo, from, now time.Time) (map[string][]poolsview.PoolBooking, error) {
	rs, err := h.store.Reservations(ctx, from, now.Add(models.BookingHorizon))
	if err != nil || len(rs) == 0 {
		return nil, err
	}
	cps := make([]models.ConfiguredPool, len(pools))
	for i, p := range pools {
		cps[i] = p.ConfiguredPool
	}
	out := map[string][]poolsview.PoolBooking{}
	for _, r := range rs {
		b := poolsview.PoolBooking{Project: r.Project, GPUs: r.GPUs,
			HoldFrom: r.StartsAt.Add(-models.BookingLead(cps, r.Spec, r.Region)), Starts: r.StartsAt, Ends: r.EndsAt}
		for _, p := range cps {
			if p.Spec == r.Spec && (r.Region == "" || p.Config.Region == r.Region) {
				out[p.Name] = append(out[p.Name], b)
			}
		}
	}
	return out, nil
}

// regionOf is where a pool's machines are, "region / zone" (either may be missing), or empty.
func regionOf(c models.PoolConfig) string {
	if c.Region != "" && c.Zone != "" {
		return c.Region + " / " + c.Zone
	}
	return c.Region + c.Zone
}

// clusterView is a Kubernetes pool's cluster on the page, as the API shows it; nil for an
// agent pool.
func clusterView(c *api.PoolCluster) *poolsview.PoolClusterView {
	if c == nil {
		return nil
	}
	return &poolsview.PoolClusterView{Watched: c.Watched, Reached: c.Reached, LeaseHeld: c.LeaseHeld, CheckedAt: c.CheckedAt,
		LastErrorAt: c.LastErrorAt, LastError: c.LastError, NodesReady: c.NodesReady, NodesNotReady: c.NodesNotReady,
		Cordoned: c.NodesCordoned, Pods: c.Pods}
}

// bootView is the pool's run of boot failures on the page, the last failure in the page's
// language.
func bootView(l phrase.Locale, p poolInfo) poolsview.PoolBootView {
	b := p.Boot
	return poolsview.PoolBootView{Failures: b.Failures, Limit: b.Limit, FailingSince: b.FailingSince, RetryAt: b.RetryAt,
		LastAt: b.LastFailureAt, Last: l.SayText(p.BootDetail)}
}
