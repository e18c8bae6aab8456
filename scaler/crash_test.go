package scaler

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	kfleet "kashi/fleet"
	"kashi/fleet/sim"
	"kashi/models"
)

// crash is the panic a crashingProvider throws: the server dies at that point.
type crash struct{}

// crashingProvider passes calls to the provider until its budget of calls is spent, then
// panics before (or, for a create, after) the call: the server dies while the cloud works.
type crashingProvider struct {
	kfleet.Provider
	left       int
	afterCalls bool
}

func (c *crashingProvider) step() {
	c.left--
	if c.left < 0 {
		panic(crash{})
	}
}

func (c *crashingProvider) Create(ctx context.Context, req kfleet.CreateRequest) (kfleet.Machine, error) {
	if !c.afterCalls {
		c.step()
	}
	m, err := c.Provider.Create(ctx, req)
	if c.afterCalls {
		c.step() // the machine exists; the answer never reaches the store
	}
	return m, err
}

func (c *crashingProvider) Delete(ctx context.Context, id string) error {
	if !c.afterCalls {
		c.step()
	}
	err := c.Provider.Delete(ctx, id)
	if c.afterCalls {
		c.step()
	}
	return err
}

func (c *crashingProvider) List(ctx context.Context, pool string) ([]kfleet.Machine, error) {
	c.step()
	return c.Provider.List(ctx, pool)
}

// fleetWorld is the world outside the server in the crash tests: the cloud (a provider that
// outlives every restart) and the agents, which register once their machine runs and report
// while it exists.
type fleetWorld struct {
	t    *testing.T
	prov kfleet.Provider
	rng  *rand.Rand
	// boots says whether a machine's agent will ever register; drawn once per machine, unless
	// allBoot says every new machine's does.
	boots   map[string]bool
	allBoot bool
}

// agents registers the agents of running machines (those that boot) and has every node
// whose machine exists report, so that it stays fresh.
func (w *fleetWorld) agents(ctx context.Context, store *models.Store, now time.Time) {
	w.t.Helper()
	ms, err := w.prov.List(ctx, "a100")
	if err != nil {
		w.t.Fatal(err)
	}
	nodes, err := store.Nodes(ctx)
	if err != nil {
		w.t.Fatal(err)
	}
	byMachine := map[string]models.NodeGPUs{}
	for _, n := range nodes {
		byMachine[n.MachineID] = n
	}
	for _, m := range ms {
		if m.State != kfleet.StateRunning {
			continue
		}
		if _, ok := w.boots[m.ID]; !ok {
			w.boots[m.ID] = w.allBoot || w.rng.IntN(6) > 0
		}
		n, registered := byMachine[m.ID]
		switch {
		case !registered && w.boots[m.ID]:
			req := models.NodeRegistration{Hostname: "host-" + m.ID, Pool: "a100", MachineID: m.ID}
			for i := range 2 {
				req.GPUs = append(req.GPUs, models.GPUInfo{UUID: fmt.Sprintf("%s-g%d", m.ID, i), Index: i,
					Name: "NVIDIA A100-SXM4-80GB", MemoryTotalMiB: 81920})
			}
			if _, err := store.RegisterNode(ctx, req, "hash-"+m.ID, now); err != nil {
				w.t.Fatal(err)
			}
		case registered && n.State != models.NodeRemoved:
			var ss []models.Reading
			for _, g := range n.GPUs {
				ss = append(ss, models.Reading{UUID: g.UUID, TS: now})
			}
			if _, err := store.IngestSamples(ctx, n.ID, ss, now); err != nil {
				w.t.Fatal(err)
			}
		}
	}
}

// crashConfig is the pool of the crash tests: small bounds that admins keep changing.
func crashConfig(rng *rand.Rand) models.PoolConfig {
	cfg := poolConfig()
	cfg.GPUsPerNode = 2
	cfg.MinNodes = rng.IntN(4)
	cfg.MaxNodes = cfg.MinNodes + rng.IntN(3)
	cfg.Step = 1 + rng.IntN(2)
	cfg.AdoptUnknown = rng.IntN(2) == 0
	cfg.CooldownUpS, cfg.CooldownDownS, cfg.UnneededS = 60, 60, 120
	return cfg
}

// checkFleet asserts the settled state: no two machines under one key, no machine without a
// live intent and no live intent without its machine, and the machine count within the
// pool's bounds.
func checkFleet(t *testing.T, ctx context.Context, store *models.Store, prov kfleet.Provider, label string) {
	t.Helper()
	ms, err := prov.List(ctx, "a100")
	if err != nil {
		t.Fatal(err)
	}
	cp, err := store.ConfiguredPoolByName(ctx, "a100")
	if err != nil {
		t.Fatal(err)
	}
	intents, err := store.Machines(ctx, cp.ID)
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string]int{}
	byID := map[string]models.Machine{}
	for _, im := range intents {
		byID[im.ProviderID] = im
	}
	for _, m := range ms {
		byKey[m.IdempotencyKey]++
		if byKey[m.IdempotencyKey] > 1 {
			t.Errorf("%s: duplicate machines under key %s: %+v", label, m.IdempotencyKey, ms)
		}
		im, ok := byID[m.ID]
		if !ok || (im.State != models.MachineCreating && im.State != models.MachineReady) {
			t.Errorf("%s: orphan machine %s (%s): intent %+v", label, m.ID, m.IdempotencyKey, im)
		}
	}
	listed := map[string]bool{}
	for _, m := range ms {
		listed[m.ID] = true
	}
	for _, im := range intents {
		if !listed[im.ProviderID] {
			t.Errorf("%s: live intent %s (%s, %s) without its machine", label, im.IdempotencyKey, im.ProviderID, im.State)
		}
	}
	if n := len(ms); n < cp.Config.MinNodes || n > cp.Config.MaxNodes {
		t.Errorf("%s: %d machines, want within [%d, %d]", label, n, cp.Config.MinNodes, cp.Config.MaxNodes)
	}
}

// settle runs fault-free ticks, 11 minutes apart on the clock *now (which the cloud may read
// too), with every agent booting, until the fleet is quiet. An admin first resumes the pool,
// which machines that never booted may have stopped.
func settle(t *testing.T, ctx context.Context, store *models.Store, w *fleetWorld, scaler *Scaler, now *time.Time) {
	t.Helper()
	for id := range w.boots {
		w.boots[id] = true
	}
	w.allBoot = true
	if _, err := store.ResumePool(ctx, "a100", *now); err != nil {
		t.Fatal(err)
	}
	for range 12 {
		*now = now.Add(11 * time.Minute)
		w.agents(ctx, store, *now)
		if _, err := scaler.RunOnce(ctx, *now); err != nil {
			t.Fatalf("settling tick: %v", err)
		}
		w.agents(ctx, store, *now)
	}
}

// TestScalerSurvivesCrashes kills the server (a panic out of the tick) at a random provider
// call, before or after the call reaches the cloud, many times during scale-ups and
// scale-downs, reopening the store from its file after each. Admins change the bounds,
// replies get lost, some machines never boot. Once it settles, the cloud holds no duplicate
// and no orphan machine and the pool is within its bounds.
func TestScalerSurvivesCrashes(t *testing.T) {
	seeds := 16
	if testing.Short() {
		seeds = 5
	}
	// Seeds run side by side: each has its own database file and cloud,
	// and a round waits mostly on the disk, not the processor.
	for seed := range uint64(seeds) {
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			t.Parallel()
			crashSeed(t, seed)
		})
	}
}

// crashSeed runs one seed of TestScalerSurvivesCrashes: 25 rounds of
// open, tick until a crash, close, then a calm settle and the fleet check.
func crashSeed(t *testing.T, seed uint64) {
	ctx := context.Background()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	rng := rand.New(rand.NewPCG(seed, 42))
	now := st0
	cloud := sim.New(sim.Options{Seed: seed, Now: func() time.Time { return now }, BootLatency: time.Minute,
		Faults: sim.Faults{LostReplyRate: 0.1, CreateErrorRate: 0.05, CapacityErrorRate: 0.05}})
	w := &fleetWorld{t: t, prov: cloud, rng: rng, boots: map[string]bool{}}
	path := filepath.Join(t.TempDir(), "kashi.db")
	keys := 0
	newScaler := func(store *models.Store, prov kfleet.Provider) *Scaler {
		return New(store, Config{Providers: map[string]kfleet.Provider{"sim": prov}, Cluster: "test",
			Logger: quiet, NewKey: func(pool string) string { keys++; return fmt.Sprintf("%s-s%d-k%d", pool, seed, keys) }})
	}
	crashes := 0
	for round := range 25 {
		store, err := models.Open(ctx, path, models.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if round%5 == 0 {
			if _, err := store.SavePoolConfig(ctx, "a100", crashConfig(rng), "admin", "", now); err != nil {
				t.Fatal(err)
			}
		}
		if rng.IntN(4) == 0 { // a machine with our tags that nobody asked for
			key := fmt.Sprintf("stray-%d-%d", seed, round)
			cloud.Create(ctx, kfleet.CreateRequest{Pool: "a100", IdempotencyKey: key, Tags: kfleet.Tags("test", "a100", key)})
		}
		faulty := &crashingProvider{Provider: cloud, left: rng.IntN(12), afterCalls: rng.IntN(2) == 0}
		scaler := newScaler(store, faulty)
		for range 1 + rng.IntN(3) {
			if crashed := tickOrCrash(ctx, scaler, now); crashed {
				crashes++
				break
			}
			now = now.Add(time.Duration(1+rng.IntN(12)) * time.Minute)
			w.agents(ctx, store, now)
		}
		w.agents(ctx, store, now)
		store.Close()
	}
	store, err := models.Open(ctx, path, models.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cloud.SetFaults(sim.Faults{})
	settle(t, ctx, store, w, newScaler(store, cloud), &now)
	checkFleet(t, ctx, store, cloud, fmt.Sprintf("seed %d (%d crashes)", seed, crashes))
	store.Close()
}

// tickOrCrash runs one tick and reports whether the server "died" in it.
func tickOrCrash(ctx context.Context, s *Scaler, now time.Time) (crashed bool) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(crash); !ok {
				panic(r)
			}
			crashed = true
		}
	}()
	s.RunOnce(ctx, now)
	return false
}
