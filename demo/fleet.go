package demo

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/gpus"

	"kashi/agent"
	"kashi/agent/simgpu"
)

// poolSpec is one simulated pool.
type poolSpec struct {
	name  string
	gpu   gpus.Config
	nodes int
}

// pools is the demo fleet: 4 × 8 A100-80G and 6 × 8 RTX4090-24G, 80 cards.
var pools = []poolSpec{
	{"a100", simgpu.A100_80G, 4},
	{"rtx4090", simgpu.RTX4090_24G, 6},
}

// startFleet starts one in-process agent per simulated machine and returns when ctx ends and
// every agent has stopped.
func startFleet(ctx context.Context, cfg Config, wg *sync.WaitGroup) {
	seed := int64(1)
	for _, p := range pools {
		for i := 1; i <= p.nodes; i++ {
			backend := simgpu.New(p.gpu, 8, cfg.Now, seed)
			seed++
			host := fmt.Sprintf("%s-%02d", p.name, i)
			a := agent.New(agent.Config{
				Server: cfg.Server, JoinToken: cfg.JoinToken, Pool: p.name, Hostname: host, MachineID: "sim-" + host,
				SampleInterval: sampleInterval, PollInterval: time.Second, StopGrace: 2 * time.Second,
				Now: cfg.Now, Logger: cfg.Logger.With("node", host),
			}, backend, backend.Runner())
			wg.Go(func() {
				if err := a.Run(ctx); err != nil && ctx.Err() == nil {
					cfg.Logger.Error("demo agent stopped", "node", host, "err", err)
				}
			})
		}
	}
}

// sampleInterval is how often, in real time, the demo's agents read their GPUs.
const sampleInterval = 2 * time.Second

// StaleAfter is the least silence, in clock time, after which the demo's cards may be shown
// as without data: a few sample intervals at the demo's speed.
func StaleAfter(speed float64) time.Duration {
	return time.Duration(float64(5*sampleInterval) * speed)
}

// Config configures Run.
type Config struct {
	// Server is the base URL of the running server.
	Server    string
	JoinToken string
	Now       func() time.Time
	Speed     float64
	Logger    *slog.Logger
	// Tokens are the task stream owners' API tokens, from Seed.
	Tokens map[string]string
	// Seed makes the task stream repeatable.
	Seed uint64
}

// Run starts the fleet and the task stream and returns when ctx ends.
func Run(ctx context.Context, cfg Config) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	var wg sync.WaitGroup
	startFleet(ctx, cfg, &wg)
	wg.Go(func() { submitTasks(ctx, cfg) })
	wg.Wait()
}
