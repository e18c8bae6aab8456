package demo

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/gpus"

	"kashi/agent"
	"kashi/agent/simgpu"
	"kashi/fleet"
	"kashi/fleet/sim"
	"kashi/models"
)

// poolSpec is one simulated pool: its GPU model, the sim flavor, the nodes it starts with and
// the bounds the scaling loop keeps it in.
type poolSpec struct {
	name, spec, flavor string
	gpu                gpus.Config
	start, min, max    int
	anySpec            bool
	// attrs is what the pool states for work across cards and nodes and for storage.
	attrs models.PoolAttributes
}

// pools is the demo fleet: it starts with 4 × 8 A100-80G and 6 × 8 RTX4090-24G (80 cards),
// and the scaling loop grows and shrinks each pool with the simulated day. The A100s have
// NVLink within a node and 4×200 Gb/s RoCE between nodes; the RTX 4090s talk over PCIe and
// have no network between nodes, so a task larger than one of them waits (see showRefused).
var pools = []poolSpec{
	{name: "a100", spec: "A100-80G", flavor: "gpu.a100.8x", gpu: simgpu.A100_80G, start: 4, min: 2, max: 12,
		attrs: models.PoolAttributes{IntraNodeLink: models.LinkNVLink, IntraNodeGBytesS: 600, InterNodeLink: models.LinkRoCE,
			InterNodePorts: 4, InterNodePortGbps: 200, LocalStorageMBps: 3000, SharedStorageMBps: 2000}},
	{name: "rtx4090", spec: "RTX4090-24G", flavor: "gpu.4090.8x", gpu: simgpu.RTX4090_24G, start: 6, min: 3, max: 9, anySpec: true,
		attrs: models.PoolAttributes{IntraNodeLink: models.LinkPCIe, IntraNodeGBytesS: 32, InterNodeLink: models.LinkNone,
			LocalStorageMBps: 2000, SharedStorageMBps: 1000}},
}

// Cluster is the demo's installation tag on its machines.
const Cluster = "kashi-demo"

// sampleInterval is how often, in real time, the demo's agents read their GPUs.
const sampleInterval = 2 * time.Second

// StaleAfter is the least silence, in clock time, after which the demo's cards may be shown
// as without data: a few sample intervals at the demo's speed.
func StaleAfter(speed float64) time.Duration {
	return time.Duration(float64(5*sampleInterval) * speed)
}

// Config configures the demo.
type Config struct {
	// Server is the base URL of the running server.
	Server    string
	JoinToken string
	Now       func() time.Time
	Speed     float64
	// Faults is the rate, 0 to 0.5, at which the cloud fails calls, loses its replies and
	// fails boots, and at which, each simulated hour, a running machine is lost: its agent
	// falls silent while the cloud still lists it (a hung or cut-off node).
	Faults float64
	Logger *slog.Logger
	// Tokens are the task stream owners' API tokens, from Seed.
	Tokens map[string]string
	// Seed makes the task stream repeatable.
	Seed uint64
	// Run names this start of the demo in its machines' ids ("sim-<run>-0001"), so that a
	// start on a database used before does not take the names of the machines that went with
	// the last one; empty for the first start.
	Run string
	// TimeZone is the server's (--time-zone): the demo's nightly schedule is reckoned in it.
	TimeZone string
}

// Demo is the simulated fleet: a sim cloud whose machines, once running, each run the real
// agent in-process on simulated GPUs, plus the task stream.
type Demo struct {
	cfg  Config
	prov *sim.Provider

	mu     sync.Mutex
	ctx    context.Context
	agents map[string]context.CancelFunc
	// logs is the folder of the simulated machines' task logs, each machine's in its own
	// folder; "" when it could not be made (the tasks then keep none).
	logs string
	wg   sync.WaitGroup
	seed int64
}

// New returns the demo; its Provider is the cloud the scaling loop drives.
func New(cfg Config) *Demo {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	d := &Demo{cfg: cfg, agents: make(map[string]context.CancelFunc)}
	prefix := "sim"
	if cfg.Run != "" {
		prefix += "-" + cfg.Run
	}
	f := cfg.Faults
	d.prov = sim.New(sim.Options{Now: cfg.Now, BootLatency: 2 * time.Minute, Seed: cfg.Seed,
		OnRunning: d.boot, OnDelete: d.shutdown, IDPrefix: prefix,
		Faults: sim.Faults{CreateErrorRate: f, LostReplyRate: f, BootFailRate: f, CapacityErrorRate: f / 2}})
	return d
}

// Provider is the demo's cloud, for the scaling loop.
func (d *Demo) Provider() fleet.Provider { return d.prov }

// Run creates the starting machines, keeps the cloud's clock moving, streams tasks, and
// returns when ctx ends and every agent has stopped.
func (d *Demo) Run(ctx context.Context) {
	logs, err := os.MkdirTemp("", "kashi-demo-logs-")
	if err != nil {
		d.cfg.Logger.Error("demo task logs", "err", err)
	} else {
		defer os.RemoveAll(logs)
	}
	d.mu.Lock()
	d.ctx, d.logs = ctx, logs
	d.mu.Unlock()
	for _, p := range pools {
		for i := 1; i <= p.start; i++ {
			key := fmt.Sprintf("%s-start-%02d", p.name, i)
			_, err := d.prov.Create(ctx, fleet.CreateRequest{Pool: p.name, Flavor: p.flavor, IdempotencyKey: key,
				Tags: fleet.Tags(Cluster, p.name, key)})
			if err != nil {
				d.cfg.Logger.Error("demo machine", "key", key, "err", err)
			}
		}
	}
	d.wg.Go(func() { submitTasks(ctx, d.cfg) })
	d.wg.Go(func() {
		// The trial starts once the rerun's node is given up, so that none of its runs is
		// placed on that node while it falls silent.
		d.showRerun(ctx)
		d.showTrial(ctx)
	})
	d.wg.Go(func() { d.showRefused(ctx) })
	d.wg.Go(func() { d.showPipelines(ctx) })
	d.wg.Go(func() { d.showPipelineTemplate(ctx) })
	rng := rand.New(rand.NewPCG(d.cfg.Seed, 0x6c6f7374))
	hour := d.cfg.Now()
	for sleep(ctx, time.Second) {
		d.prov.Tick()
		if now := d.cfg.Now(); now.Sub(hour) >= time.Hour {
			hour = now
			if d.cfg.Faults > 0 && rng.Float64() < d.cfg.Faults {
				d.loseOne(rng)
			}
		}
	}
	d.wg.Wait()
}

// loseOne silences one running machine's agent, drawn by rng, leaving the machine in the
// cloud: the server must notice the node is lost.
func (d *Demo) loseOne(rng *rand.Rand) {
	d.mu.Lock()
	ids := slices.Sorted(maps.Keys(d.agents))
	d.mu.Unlock()
	if len(ids) > 0 {
		d.lose(ids[rng.IntN(len(ids))])
	}
}

// boot starts the agent of a machine that began running.
func (d *Demo) boot(m fleet.Machine) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.ctx == nil || d.ctx.Err() != nil {
		return
	}
	var spec *poolSpec
	for i := range pools {
		if pools[i].name == m.Pool {
			spec = &pools[i]
		}
	}
	if spec == nil {
		d.cfg.Logger.Error("demo machine of an unknown pool", "pool", m.Pool)
		return
	}
	d.seed++
	backend := simgpu.New(spec.gpu, 8, d.cfg.Now, d.seed)
	runner := backend.Runner()
	if d.logs != "" {
		// The machine's disk: its tasks write their progress there, and its agent ships it.
		dir := filepath.Join(d.logs, m.ID)
		if err := os.MkdirAll(dir, 0o755); err == nil {
			runner = backend.LoggingRunner(dir)
		}
	}
	a := agent.New(agent.Config{
		Server: d.cfg.Server, JoinToken: d.cfg.JoinToken, Pool: m.Pool, Hostname: m.ID, MachineID: m.ID,
		SampleInterval: sampleInterval, PollInterval: time.Second, StopGrace: 2 * time.Second,
		Now: d.cfg.Now, Logger: d.cfg.Logger.With("node", m.ID),
	}, backend, runner)
	ctx, cancel := context.WithCancel(d.ctx)
	d.agents[m.ID] = cancel
	d.wg.Go(func() {
		if err := a.Run(ctx); err != nil && ctx.Err() == nil {
			d.cfg.Logger.Error("demo agent stopped", "node", m.ID, "err", err)
		}
	})
}

// shutdown stops the agent of a deleted machine, as powering it off would.
func (d *Demo) shutdown(m fleet.Machine) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if cancel, ok := d.agents[m.ID]; ok {
		cancel()
		delete(d.agents, m.ID)
	}
}
