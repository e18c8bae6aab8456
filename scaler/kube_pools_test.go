package scaler

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	kfleet "kashi/fleet"
	"kashi/fleet/sim"
	"kashi/models"
	"kashi/scheduler"
)

// kubePoolConfig is poolConfig as a Kubernetes pool, sized as scaling says.
func kubePoolConfig(scaling string) models.PoolConfig {
	c := poolConfig()
	c.Backend, c.KubeNodeSelector, c.KubeScaling = models.BackendKubernetes, "pool=a100", scaling
	c.Enabled = scaling == models.KubeScalingProvider
	return c
}

// calls counts the calls made to a provider.
type calls struct {
	kfleet.Provider
	mu  sync.Mutex
	log []string
}

func (c *calls) note(s string) { c.mu.Lock(); c.log = append(c.log, s); c.mu.Unlock() }
func (c *calls) Create(ctx context.Context, r kfleet.CreateRequest) (kfleet.Machine, error) {
	c.note("create")
	return c.Provider.Create(ctx, r)
}
func (c *calls) List(ctx context.Context, pool string) ([]kfleet.Machine, error) {
	c.note("list")
	return c.Provider.List(ctx, pool)
}
func (c *calls) Get(ctx context.Context, id string) (kfleet.Machine, error) {
	c.note("get")
	return c.Provider.Get(ctx, id)
}
func (c *calls) Delete(ctx context.Context, id string) error {
	c.note("delete " + id)
	return c.Provider.Delete(ctx, id)
}
func (c *calls) Flavors(ctx context.Context) ([]kfleet.Flavor, error) {
	c.note("flavors")
	return c.Provider.Flavors(ctx)
}

// TestScalerReportsClusterScaledDemand: a Kubernetes pool its cluster's autoscaler sizes is
// never acted on and its provider never called, whatever its demand and idle nodes; each tick
// records its size (the cluster's nodes) and its admissible demand (the 16 cards of the task
// that fits nowhere; the quota-blocked one left out), which the pools API and the
// kashi_pool_demand_gpus gauge read, and says why it did not act.
func TestScalerReportsClusterScaledDemand(t *testing.T) {
	queue := func(ctx context.Context, now time.Time) (scheduler.Snapshot, scheduler.Plan, error) {
		return scheduler.Snapshot{Pending: []scheduler.Pending{
				{ID: 1, Spec: "A100-80G", GPUs: 16, SubmittedAt: st0.Add(-time.Hour)},
				{ID: 2, Spec: "A100-80G", GPUs: 64, SubmittedAt: st0.Add(-time.Hour)}}},
			scheduler.Plan{Waiting: []scheduler.Waiting{
				{TaskID: 1, Reason: scheduler.ReasonNoFreeGPUs, Spec: "A100-80G"},
				{TaskID: 2, Reason: scheduler.ReasonQuota}}}, nil
	}
	h := newScaleHarness(t, kubePoolConfig(""), sim.Options{}, queue)
	prov := &calls{Provider: h.prov}
	h.scaler.cfg.Providers["sim"] = prov
	h.register("uid-1") // the cluster's nodes, long idle
	h.register("uid-2")
	for range 3 {
		h.fresh()
		plan := h.tick(20 * time.Minute)
		if len(plan.Actions) > 0 {
			t.Fatalf("a cluster-scaled pool's plan = %v, want no action", summary(plan))
		}
		want := []PoolSize{{Pool: "a100", Size: 2, Desired: 2, DemandGPUs: 16}}
		if !slices.Equal(plan.Sizes, want) {
			t.Errorf("sizes = %+v, want %+v", plan.Sizes, want)
		}
		if len(plan.Skips) != 1 || plan.Skips[0].Reason != ReasonClusterScales ||
			english.Say(plan.Skips[0].Detail) != "the cluster's autoscaler sizes the pool; its ready demand wants 16 cards" {
			t.Errorf("skips = %+v, want the cluster's autoscaler named with 16 cards", plan.Skips)
		}
	}
	if len(prov.log) > 0 {
		t.Errorf("the provider was called %v, want never", prov.log)
	}
	sizes, err := h.store.LatestPoolSizes(h.ctx)
	if err != nil || sizes[h.pool.ID].DemandGPUs != 16 || sizes[h.pool.ID].Size != 2 {
		t.Errorf("LatestPoolSizes = %+v, %v; want size 2 and 16 cards of demand", sizes[h.pool.ID], err)
	}
	if ms, _ := h.store.Machines(h.ctx, h.pool.ID); len(ms) > 0 {
		t.Errorf("machine intents %+v, want none", ms)
	}
}

// TestScalerKubeProviderReleasesOnlyItsMachines: on a Kubernetes pool Kashi sizes, the loop
// boots a machine through the provider for the pool's minimum; the cluster's own node, idle
// as long, is never drained; once the minimum drops, Kashi's machine's node is drained, then
// cordoned in the cluster before its machine is deleted.
func TestScalerKubeProviderReleasesOnlyItsMachines(t *testing.T) {
	cfg := kubePoolConfig(models.KubeScalingProvider)
	cfg.MinNodes = 2 // the cluster's node and one machine
	h := newScaleHarness(t, cfg, sim.Options{}, nil)
	prov := &calls{Provider: h.prov}
	h.scaler.cfg.Providers["sim"] = prov
	h.scaler.cfg.Cordon = func(_ context.Context, pool, node string) error {
		prov.note("cordon " + pool + " " + node)
		return nil
	}
	own := h.register("uid-own") // the cluster's: no intent is ready on it
	h.tick(0)
	h.registerAll()
	h.tick(time.Minute)
	h.wantIntents("a100-k1:ready")
	cfg.MinNodes = 0
	if _, err := h.store.SavePoolConfig(h.ctx, "a100", cfg, "admin", "smaller", h.now); err != nil {
		t.Fatal(err)
	}
	var drained []string
	for range 4 {
		h.now = h.now.Add(11 * time.Minute)
		h.fresh()
		for _, a := range h.tick(time.Second).Actions {
			drained = append(drained, summary(Plan{Actions: []Action{a}})...)
		}
	}
	if !slices.Equal(drained, []string{"drain 2 node-unneeded", "remove 2 drained-empty"}) {
		t.Errorf("actions = %v, want Kashi's node 2 drained and removed, the cluster's node %d left", drained, own.ID)
	}
	h.wantIntents("")
	i := slices.Index(prov.log, "cordon a100 host-sim-0001")
	if i < 0 || i+1 >= len(prov.log) || prov.log[i+1] != "delete sim-0001" {
		t.Errorf("provider calls %v, want the node cordoned, then its machine deleted", prov.log)
	}
}
