package replay

import (
	"fmt"
	"time"

	"kashi/models"
)

// The calibration of a deployment's own pool: its settings as replay's elastic pool, and a
// swept setting written back as the pool change it proposes.

// PoolOf is the deployment's pool name (of spec, configured as cfg) as an elastic pool of the
// replay, starting at its minimum size, each card-hour of a machine costing rateFen.
func PoolOf(name string, cfg models.PoolConfig, rateFen int64) Pool {
	sec := func(s int64) time.Duration { return time.Duration(s) * time.Second }
	return Pool{Name: name, Spec: cfg.Spec, GPUsPerNode: cfg.GPUsPerNode, AnySpec: cfg.AnySpec, RateFen: rateFen,
		BootTime: 0, Scale: &ScaleConfig{MinNodes: cfg.MinNodes, MaxNodes: cfg.MaxNodes, Step: cfg.Step,
			ReservedMin: cfg.ReservedMin, BootTimeout: sec(cfg.BootTimeoutS), BootFailureLimit: cfg.BootFailureLimit,
			BootBackoffMax: sec(cfg.BootBackoffMaxS), ScaleUpDelay: sec(cfg.ScaleUpDelayS),
			MemoryHighPct: cfg.MemoryHighPct, MemoryHighWindow: sec(cfg.MemoryHighWindowS), MemoryLowPct: cfg.MemoryLowPct,
			MemoryLowWindow: sec(cfg.MemoryLowWindowS), UnneededTime: sec(cfg.UnneededS), CooldownUp: sec(cfg.CooldownUpS),
			CooldownDown: sec(cfg.CooldownDownS), MaxInFlight: cfg.MaxInFlight, DrainBuffer: sec(cfg.DrainBufferS)}}
}

// ProposeConfig is cfg with the pool settings of s applied, the same way a sweep applies
// them to the replay's pool (Setting.Apply), so what is proposed is what was replayed. A
// setting that is not a pool's (policy, estimates, nodes, boot_time) is an error.
func ProposeConfig(s Setting, name string, cfg models.PoolConfig) (models.PoolConfig, error) {
	for _, c := range s {
		switch c.Name {
		case "policy", "estimates", "nodes", "boot_time":
			return cfg, fmt.Errorf("replay: %s is not a setting of the pool", c.Name)
		}
	}
	opt, err := s.Apply(Options{Fleet: Config{Pools: []Pool{PoolOf(name, cfg, 0)}}})
	if err != nil {
		return cfg, err
	}
	sc := opt.Fleet.Pools[0].Scale
	secs := func(d time.Duration) int64 { return int64(d / time.Second) }
	cfg.MinNodes, cfg.MaxNodes, cfg.Step, cfg.ReservedMin = sc.MinNodes, sc.MaxNodes, sc.Step, sc.ReservedMin
	cfg.ScaleUpDelayS, cfg.MemoryHighPct, cfg.MemoryLowPct = secs(sc.ScaleUpDelay), sc.MemoryHighPct, sc.MemoryLowPct
	cfg.UnneededS, cfg.CooldownUpS, cfg.CooldownDownS = secs(sc.UnneededTime), secs(sc.CooldownUp), secs(sc.CooldownDown)
	return cfg, nil
}
