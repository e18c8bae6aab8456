package metrics

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"kashi/api"
	"kashi/models"
)

// gpuKey is one kashi_gpus series.
type gpuKey struct{ pool, spec, state string }

// collectBoard sends the GPU families and the ingest lag from the board's snapshot, which
// is kept in memory between changes. Every configured pool has its series from the start,
// at zero while it has no card.
func (c *Collector) collectBoard(ctx context.Context, now time.Time, ch chan<- prometheus.Metric) error {
	rows, err := c.store.BoardGPUs(ctx, models.BoardFilter{})
	if err != nil {
		return err
	}
	pools, err := c.store.ConfiguredPools(ctx)
	if err != nil {
		return err
	}
	gpus := map[gpuKey]int{}
	idleHeld, idleLongest := map[string]int{}, map[string]time.Duration{}
	for _, p := range pools {
		gpus[gpuKey{p.Name, p.Spec, models.GPUFree}] = 0
		idleHeld[p.Name], idleLongest[p.Name] = 0, 0
	}
	var newest time.Time
	for _, g := range rows {
		st := g.Status(now, c.cfg.Marks)
		gpus[gpuKey{g.Pool, g.Spec, st.State}]++
		if _, ok := idleHeld[g.Pool]; !ok {
			idleHeld[g.Pool], idleLongest[g.Pool] = 0, 0
		}
		if st.State == models.GPUIdle {
			idleHeld[g.Pool]++
			idleLongest[g.Pool] = max(idleLongest[g.Pool], now.Sub(*g.IdleSince))
		}
		if g.SampledAt != nil && g.SampledAt.After(newest) {
			newest = *g.SampledAt
		}
	}
	// Every state of a pool and spec is a series, at zero when no card is in it, so that a
	// state that has not happened yet (stale) is there for dashboards and alerts.
	for k := range gpus {
		for _, st := range api.GPUStates() {
			if _, ok := gpus[gpuKey{k.pool, k.spec, string(st)}]; !ok {
				gpus[gpuKey{k.pool, k.spec, string(st)}] = 0
			}
		}
	}
	for k, n := range gpus {
		ch <- prometheus.MustNewConstMetric(gpusDesc, prometheus.GaugeValue, float64(n), k.pool, k.spec, k.state)
	}
	for pool, n := range idleHeld {
		ch <- prometheus.MustNewConstMetric(idleHeldDesc, prometheus.GaugeValue, float64(n), pool)
		ch <- prometheus.MustNewConstMetric(idleLongestDesc, prometheus.GaugeValue, idleLongest[pool].Seconds(), pool)
	}
	if !newest.IsZero() {
		ch <- prometheus.MustNewConstMetric(ingestLagDesc, prometheus.GaugeValue, max(0, now.Sub(newest).Seconds()))
	}
	return nil
}
