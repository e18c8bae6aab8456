package pools

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
	"kashi/models"
	"kashi/phrase"
	"kashi/scaler"
	poolsview "kashi/views/pools"
)

// poolInfo is a configured pool with what the pools page and API show of it.
type poolInfo struct {
	models.ConfiguredPool
	// Size and Desired are the scaling loop's at its last tick; before the first, Size counts
	// the nodes and machines booting and Desired equals it. DemandGPUs is the admissible
	// demand of its latest size sample, as the kashi_pool_demand_gpus gauge reads it.
	Size, Desired, DemandGPUs int
	State                     string
	// StatusAt is the last tick's time; nil before the first.
	StatusAt *time.Time
	Skips    []models.PoolSkip
	Nodes    []models.NodeGPUs
	// Booting are the machines asked for whose agent has not registered.
	Booting []models.Machine
	Events  []models.ScalingEvent
	// PriceFen is the list price of one machine per hour and PriceSource where it came
	// from (models.PriceFrom*): the scaling loop's last look, else the pool's settings.
	PriceFen    int64
	PriceSource string
	// Boot is the pool's machines that failed to boot in a row, the last failure in English;
	// BootDetail is that failure's numbers as phrases, for the page's language.
	Boot       api.PoolBoot
	BootDetail string
	// Cluster is a Kubernetes pool's cluster as this replica's controller sees it; nil for
	// an agent pool.
	Cluster *api.PoolCluster
}

// poolInfos loads every configured pool with its nodes, machines booting, scaling state,
// boot failures and its latest events (at most events each).
func (h *Handler) poolInfos(ctx context.Context, events int) ([]poolInfo, error) {
	views, err := h.store.PoolOverviews(ctx, events)
	if err != nil {
		return nil, err
	}
	var clusters map[string]api.PoolCluster
	if h.Cfg.Clusters != nil {
		clusters = h.Cfg.Clusters.ClusterStates()
	}
	sizes, err := h.store.LatestPoolSizes(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]poolInfo, len(views))
	for i, v := range views {
		pi := poolInfo{ConfiguredPool: v.ConfiguredPool, Nodes: v.Nodes, Booting: v.Booting, Events: v.Events,
			DemandGPUs: sizes[v.ID].DemandGPUs}
		if v.LastChange.Version > 0 {
			// The latest version says when and by whom: the policy row's updated_at is
			// rewritten with the wall clock by GORM on a conflict update.
			pi.UpdatedAt, pi.UpdatedBy = v.LastChange.At, v.LastChange.By
		}
		pi.Size = len(pi.Nodes) + len(pi.Booting)
		pi.Desired = pi.Size
		if st := v.State; !st.UpdatedAt.IsZero() {
			at := st.UpdatedAt
			pi.Size, pi.Desired, pi.StatusAt, pi.Skips = st.Size, st.Desired, &at, st.SkipList()
		}
		pi.PriceFen, pi.PriceSource = v.State.HourlyPriceFen, v.State.PriceSource
		if pi.PriceSource == "" && v.Config.HourlyPriceFen > 0 {
			pi.PriceFen, pi.PriceSource = v.Config.HourlyPriceFen, models.PriceFromSettings
		}
		pi.Boot, pi.BootDetail = poolBoot(v.Config, v.State, h.Now()), v.State.BootFailureDetail
		pi.State = poolState(pi)
		if v.Config.Kubernetes() {
			c := clusters[v.Name]
			pi.Cluster = &c
		}
		out[i] = pi
	}
	return out, nil
}

// poolBoot is a pool's run of boot failures as the API shows it at now: the back-off's end
// by the scaling loop's own rule (scaler.BootRun).
func poolBoot(cfg models.PoolConfig, st models.PoolScaleState, now time.Time) api.PoolBoot {
	pol := scaler.PolicyOf(cfg).WithDefaults()
	b := api.PoolBoot{Failing: st.FailingSince != nil, FailingSince: st.FailingSince, Failures: st.BootFailures,
		Limit: pol.BootFailureLimit, LastFailureAt: st.BootFailedAt, LastFailureReason: st.BootFailureReason,
		LastFailure: phrase.Locale{}.SayText(st.BootFailureDetail)}
	if st.BootFailures > 0 && st.BootFailedAt != nil && !b.Failing {
		run := scaler.BootRun{Failures: st.BootFailures, LastAt: *st.BootFailedAt}
		if at := run.RetryAt(pol); at.After(now) {
			b.RetryAt = &at
		}
	}
	return b
}

// poolState is what a pool is doing: scaling off, failing (stopped after machines failed to
// boot), growing (asking for or booting machines), shrinking (draining nodes), at its maximum
// while demand waits, or steady.
func poolState(p poolInfo) string {
	draining := false
	for _, n := range p.Nodes {
		draining = draining || n.State == models.NodeDraining
	}
	switch {
	case !p.Config.Enabled:
		return poolsview.PoolDisabled
	case p.Boot.Failing:
		return poolsview.PoolFailing
	case p.Desired > p.Size || len(p.Booting) > 0:
		return poolsview.PoolGrowing
	case p.Desired < p.Size || draining:
		return poolsview.PoolShrinking
	case p.Size >= p.Config.MaxNodes && slices.ContainsFunc(p.Skips, func(s models.PoolSkip) bool { return s.Reason == string(scaler.ReasonAtMaxSize) }):
		return poolsview.PoolAtMax
	}
	return poolsview.PoolSteady
}

// toPoolJSON is a pool as the API shows it, the scaling loop's sentences (why it acted or
// did not) in l's language beside their reason codes.
func toPoolJSON(l phrase.Locale, p poolInfo) api.Pool {
	// A configuration is plain data: it always encodes.
	config, _ := json.Marshal(p.Config)
	out := api.Pool{Name: p.Name, Spec: p.Spec, Provider: p.Provider, Size: p.Size, Desired: p.Desired, DemandGPUs: p.DemandGPUs,
		State: p.State, Version: p.Version, UpdatedAt: p.UpdatedAt, UpdatedBy: p.UpdatedBy, Config: config, StatusAt: p.StatusAt,
		Nodes: []api.PoolNode{}, Booting: []api.PoolMachine{}, Skips: []api.PoolSkip{}, Events: []api.ScaleEvent{}, Boot: p.Boot,
		Cluster: p.Cluster}
	for _, n := range p.Nodes {
		out.Nodes = append(out.Nodes, api.PoolNode{ID: n.ID, Hostname: n.Hostname, State: n.State, MachineID: n.MachineID,
			GPUs: len(n.GPUs), LastSeenAt: n.LastSeenAt})
	}
	for _, m := range p.Booting {
		out.Booting = append(out.Booting, api.PoolMachine{Key: m.IdempotencyKey, ProviderID: m.ProviderID, State: m.State, CreatedAt: m.CreatedAt})
	}
	for _, s := range p.Skips {
		out.Skips = append(out.Skips, api.PoolSkip{Reason: s.Reason, Detail: l.SayText(s.Detail)})
	}
	for _, e := range p.Events {
		out.Events = append(out.Events, api.ScaleEvent{At: e.At, Kind: e.Kind, From: e.FromSize, To: e.ToSize, Reason: e.Reason,
			Detail: l.SayText(e.Detail), NodeID: e.NodeID, MachineKey: e.MachineKey})
	}
	return out
}

// PoolsList lists every configured pool with its size, desired size, nodes, configuration,
// why it did not act and its latest scaling events (?events=N, default 20, at most 500).
// GET /api/v1/pools.
func (h *Handler) PoolsList(c echo.Context) error {
	n := 20
	if v := c.QueryParam("events"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 0 || n > 500 {
			return handlers.BadRequest("events", "events must be 0 to 500")
		}
	}
	pools, err := h.poolInfos(c.Request().Context(), max(n, 1))
	if err != nil {
		return err
	}
	out := make([]api.Pool, len(pools))
	for i, p := range pools {
		if n == 0 {
			p.Events = nil
		}
		out[i] = toPoolJSON(handlers.Locale(c), p)
	}
	return c.JSON(http.StatusOK, out)
}

// PoolSet saves a pool's whole configuration as a new version, creating the pool if needed
// (admins only); ?note= says why. The body is the configuration as GET /api/v1/pools shows it
// under "config". POST /api/v1/pools/:name.
func (h *Handler) PoolSet(c echo.Context) error {
	name, err := poolName(c)
	if err != nil {
		return err
	}
	var cfg models.PoolConfig
	if err := handlers.DecodeJSON(c, 16<<10, &cfg); err != nil {
		return err
	}
	if _, _, err := h.savePool(c, name, cfg, c.QueryParam("note")); err != nil {
		return handlers.APIError(http.StatusUnprocessableEntity, err)
	}
	return h.poolAnswer(c, name)
}

// poolAnswer answers with the named pool as GET /api/v1/pools shows it, with its latest 20
// events; 404 when it has no configuration.
func (h *Handler) poolAnswer(c echo.Context, name string) error {
	pools, err := h.poolInfos(c.Request().Context(), 20)
	if err != nil {
		return err
	}
	for _, p := range pools {
		if p.Name == name {
			return c.JSON(http.StatusOK, toPoolJSON(handlers.Locale(c), p))
		}
	}
	return handlers.StoreError(models.ErrNotFound)
}

// auditPoolConfig is the audit action of a pool configuration change.
const auditPoolConfig = "pool-config"

// savePool stores cfg as the pool's configuration, with what its flavor states filled in
// (flavorStates); a change is audited and wakes the loops.
// changed is false when cfg equals the current configuration (no version is added).
func (h *Handler) savePool(c echo.Context, name string, cfg models.PoolConfig, note string) (saved models.ConfiguredPool, changed bool, err error) {
	ctx := c.Request().Context()
	before, _, err := h.configuredPool(ctx, name)
	if err != nil {
		return saved, false, err
	}
	cfg = h.flavorStates(ctx, cfg)
	if saved, err = h.store.SavePoolConfig(ctx, name, cfg, handlers.Who(c).User.Name, note, h.Now()); err != nil {
		return saved, false, err
	}
	if saved.Version == before.Version {
		return saved, false, nil
	}
	var old any
	if before.Version > 0 {
		old = before.Config
	}
	if err := h.store.Audit(ctx, h.Now(), handlers.Who(c).User.Name, auditPoolConfig, nil, "pool "+name, old, saved.Config); err != nil {
		return saved, true, err
	}
	h.wakeLoops()
	return saved, true, nil
}

// configuredPool returns the named pool's configuration, and false when it has none.
func (h *Handler) configuredPool(ctx context.Context, name string) (models.ConfiguredPool, bool, error) {
	pools, err := h.store.ConfiguredPools(ctx)
	if err != nil {
		return models.ConfiguredPool{}, false, err
	}
	for _, p := range pools {
		if p.Name == name {
			return p, true, nil
		}
	}
	return models.ConfiguredPool{}, false, nil
}

// wakeLoops wakes the scaling loop, when one is wired, and the scheduler: a pool's change
// may change its size or what projects without a quota may use of its spec.
func (h *Handler) wakeLoops() {
	if h.Cfg.ScaleTrigger != nil {
		h.Cfg.ScaleTrigger()
	}
	h.Sched.Trigger()
}

// poolName is the :name path parameter. The router matches the raw path when the URL has
// escapes the plain path cannot show (a "/" as %2F), and its parameters are then still
// escaped.
func poolName(c echo.Context) (string, error) {
	name, err := c.Param("name"), error(nil)
	if c.Request().URL.RawPath != "" {
		name, err = url.PathUnescape(name)
	}
	if err != nil || name == "" || len(name) > 100 {
		return "", handlers.BadRequest("name", "name must be a pool name of 1 to 100 bytes")
	}
	return name, nil
}
