package replay

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"kashi/scaler"
	"kashi/scheduler"
	"time"

	"go.yaml.in/yaml/v3"
)

// DefaultScaleInterval is how often the scaling decisions run on the virtual clock, as the
// server's scaling loop does by default.
const DefaultScaleInterval = 30 * time.Second

// DefaultBootTime is how long a new machine takes until its agent registers.
const DefaultBootTime = 3 * time.Minute

// maxGPUsPerNode bounds a node's cards (the replay numbers a node's cards below it).
const maxGPUsPerNode = 1024

// maxNodes bounds a pool's size.
const maxNodes = 100_000

// Config is the fleet of a replay: its pools, read from a YAML file (ParseConfig) or built
// from flags (FixedFleet).
type Config struct {
	// ScaleInterval is the period of the scaling decisions; zero means
	// DefaultScaleInterval.
	ScaleInterval time.Duration `yaml:"scale_interval"`
	Pools         []Pool        `yaml:"pools"`
	// Quotas are the projects' (the trace's groups') concurrent limits, which the kashi
	// policy enforces as the server does; a group without one is unlimited.
	Quotas []Quota `yaml:"quotas"`
}

// Quota is one project's concurrent limit: at most MaxGPUs cards of Spec at once (of every
// spec together when Spec is empty), Guaranteed of them kept from other projects' long
// tasks; with Overflow the project may run past it.
type Quota struct {
	Project    string `yaml:"project"`
	Spec       string `yaml:"spec"`
	MaxGPUs    int    `yaml:"max_gpus"`
	Guaranteed int    `yaml:"guaranteed_gpus"`
	Overflow   bool   `yaml:"overflow"`
}

// quotaStates are the quotas as Decide reads them, by project; nil for none.
func (c Config) quotaStates() map[string]scheduler.QuotaState {
	if len(c.Quotas) == 0 {
		return nil
	}
	out := make(map[string]scheduler.QuotaState)
	for _, q := range c.Quotas {
		qs := out[q.Project]
		qs.Overflow = qs.Overflow || q.Overflow
		if q.Spec == "" {
			qs.MaxGPUs = q.MaxGPUs
		} else {
			if qs.MaxGPUsBySpec == nil {
				qs.MaxGPUsBySpec, qs.Guaranteed = map[string]int{}, map[string]int{}
			}
			qs.MaxGPUsBySpec[q.Spec], qs.Guaranteed[q.Spec] = q.MaxGPUs, q.Guaranteed
		}
		out[q.Project] = qs
	}
	return out
}

// Pool is one pool of identical machines.
type Pool struct {
	Name        string `yaml:"name"`
	Spec        string `yaml:"spec"`
	GPUsPerNode int    `yaml:"gpus_per_node"`
	// Nodes is the size of a fixed pool; an elastic pool starts at Scale.MinNodes.
	Nodes int `yaml:"nodes"`
	// AnySpec: tasks that take any spec count as this pool's demand.
	AnySpec bool `yaml:"any_spec"`
	// RateFen is what one card-hour of a provisioned machine costs, in fen.
	RateFen int64 `yaml:"rate_fen"`
	// BootTime is how long a new machine takes until its agent registers; zero means
	// DefaultBootTime.
	BootTime time.Duration `yaml:"boot_time"`
	// Scale makes the pool elastic: the production scaling decisions grow and shrink it.
	Scale *ScaleConfig `yaml:"scale"`
	// Versions are an elastic pool's later scaling settings, in order of time: the pool
	// scales by each from the first scaling tick at or after its From, as a pool whose
	// settings were changed while the trace ran.
	Versions []Version `yaml:"versions"`
}

// Version is an elastic pool's scaling settings from a time on.
type Version struct {
	From  time.Time   `yaml:"from"`
	Scale ScaleConfig `yaml:"scale"`
}

// ScaleConfig is a pool's scaling policy as written in the file; zero fields take the
// production defaults (scaler.Policy.WithDefaults).
type ScaleConfig struct {
	MinNodes    int           `yaml:"min_nodes"`
	MaxNodes    int           `yaml:"max_nodes"`
	Step        int           `yaml:"step"`
	ReservedMin int           `yaml:"reserved_min"`
	BootTimeout time.Duration `yaml:"boot_timeout"`
	// BootFailureLimit and BootBackoffMax: machines that fail to boot make the pool wait
	// before the next, and stop it at the limit, as on the server (scaler.BootRun); the
	// replay never resumes a stopped pool.
	BootFailureLimit int           `yaml:"boot_failure_limit"`
	BootBackoffMax   time.Duration `yaml:"boot_backoff_max"`
	ScaleUpDelay     time.Duration `yaml:"scale_up_delay"`
	MemoryHighPct    float64       `yaml:"memory_high_pct"`
	MemoryHighWindow time.Duration `yaml:"memory_high_window"`
	MemoryLowPct     float64       `yaml:"memory_low_pct"`
	MemoryLowWindow  time.Duration `yaml:"memory_low_window"`
	UnneededTime     time.Duration `yaml:"unneeded_time"`
	CooldownUp       time.Duration `yaml:"cooldown_up"`
	CooldownDown     time.Duration `yaml:"cooldown_down"`
	MaxInFlight      int           `yaml:"max_in_flight"`
	DrainBuffer      time.Duration `yaml:"drain_buffer"`
}

// Policy is the scaling policy DecideScale gets, defaults filled in.
func (s ScaleConfig) Policy() scaler.Policy {
	return scaler.Policy{MinNodes: s.MinNodes, MaxNodes: s.MaxNodes, Step: s.Step,
		ReservedMin: s.ReservedMin, BootTimeout: s.BootTimeout, BootFailureLimit: s.BootFailureLimit,
		BootBackoffMax: s.BootBackoffMax, ScaleUpDelay: s.ScaleUpDelay,
		MemoryHighPct: s.MemoryHighPct, MemoryHighWindow: s.MemoryHighWindow, MemoryLowPct: s.MemoryLowPct,
		MemoryLowWindow: s.MemoryLowWindow, UnneededTime: s.UnneededTime, CooldownAfterUp: s.CooldownUp,
		CooldownAfterDown: s.CooldownDown, MaxInFlight: s.MaxInFlight, DrainBuffer: s.DrainBuffer}.WithDefaults()
}

// FixedFleet is n nodes of g GPUs each, in one pool that takes any spec.
func FixedFleet(n, g int) Config {
	return Config{Pools: []Pool{{Name: "fixed", Spec: "gpu", GPUsPerNode: g, Nodes: n, AnySpec: true}}}
}

// ParseConfig reads a YAML fleet file; unknown keys are errors, so a typo is not ignored.
func ParseConfig(r io.Reader) (Config, error) {
	data, err := io.ReadAll(io.LimitReader(r, 1<<20+1))
	if err != nil {
		return Config{}, fmt.Errorf("replay: read config: %w", err)
	}
	if len(data) > 1<<20 {
		return Config{}, errors.New("replay: the config file is over 1 MiB")
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var c Config
	if err := dec.Decode(&c); err != nil {
		return Config{}, fmt.Errorf("replay: config: %w", err)
	}
	return c, c.Validate()
}

// Validate checks the fleet: at least one pool, unique names, sizes in range, an elastic
// pool's bounds consistent.
func (c Config) Validate() error {
	if len(c.Pools) == 0 {
		return errors.New("replay: config: no pools")
	}
	if c.ScaleInterval < 0 {
		return errors.New("replay: config: scale_interval is negative")
	}
	seen := map[string]bool{}
	for i, p := range c.Pools {
		at := fmt.Sprintf("replay: config: pool %d (%q)", i+1, p.Name)
		switch {
		case p.Name == "":
			return fmt.Errorf("%s: name is empty", at)
		case seen[p.Name]:
			return fmt.Errorf("%s: name used twice", at)
		case p.GPUsPerNode < 1 || p.GPUsPerNode > maxGPUsPerNode:
			return fmt.Errorf("%s: gpus_per_node must be 1 to %d, got %d", at, maxGPUsPerNode, p.GPUsPerNode)
		case p.Nodes < 0 || p.Nodes > maxNodes:
			return fmt.Errorf("%s: nodes must be 0 to %d, got %d", at, maxNodes, p.Nodes)
		case p.RateFen < 0:
			return fmt.Errorf("%s: rate_fen is negative", at)
		case p.BootTime < 0:
			return fmt.Errorf("%s: boot_time is negative", at)
		}
		seen[p.Name] = true
		if p.Scale == nil {
			switch {
			case p.Nodes == 0:
				return fmt.Errorf("%s: a fixed pool needs nodes ≥ 1 (or a scale section)", at)
			case len(p.Versions) > 0:
				return fmt.Errorf("%s: only an elastic pool has versions", at)
			}
			continue
		}
		if p.Nodes != 0 {
			return fmt.Errorf("%s: an elastic pool starts at scale.min_nodes; drop nodes", at)
		}
		if err := validateScale(at, "scale", *p.Scale); err != nil {
			return err
		}
		for k, v := range p.Versions {
			switch {
			case v.From.IsZero():
				return fmt.Errorf("%s: versions[%d].from is missing", at, k)
			case k > 0 && !v.From.After(p.Versions[k-1].From):
				return fmt.Errorf("%s: versions[%d].from must be after versions[%d].from", at, k, k-1)
			}
			if err := validateScale(at, fmt.Sprintf("versions[%d].scale", k), v.Scale); err != nil {
				return err
			}
		}
	}
	return c.validateQuotas()
}

// validateScale checks an elastic pool's scaling settings, named name in the errors.
func validateScale(at, name string, s ScaleConfig) error {
	switch {
	case s.MinNodes < 0 || s.MaxNodes < 1 || s.MaxNodes > maxNodes || s.MinNodes > s.MaxNodes:
		return fmt.Errorf("%s: need 0 ≤ %s.min_nodes ≤ %[2]s.max_nodes, 1 ≤ max_nodes ≤ %d; got %d and %d",
			at, name, maxNodes, s.MinNodes, s.MaxNodes)
	case s.Step < 0 || s.ReservedMin < 0 || s.MaxInFlight < 0 || s.BootFailureLimit < 0:
		return fmt.Errorf("%s: step, reserved_min, max_in_flight and boot_failure_limit may not be negative", at)
	case s.MemoryHighPct < 0 || s.MemoryLowPct < 0:
		return fmt.Errorf("%s: memory marks may not be negative", at)
	}
	for _, d := range []struct {
		name string
		d    time.Duration
	}{{"boot_timeout", s.BootTimeout}, {"boot_backoff_max", s.BootBackoffMax}, {"scale_up_delay", s.ScaleUpDelay}, {"memory_high_window", s.MemoryHighWindow},
		{"memory_low_window", s.MemoryLowWindow}, {"unneeded_time", s.UnneededTime}, {"cooldown_up", s.CooldownUp},
		{"cooldown_down", s.CooldownDown}, {"drain_buffer", s.DrainBuffer}} {
		if d.d < 0 {
			return fmt.Errorf("%s: %s.%s is negative", at, name, d.name)
		}
	}
	return nil
}

// validateQuotas checks the projects' quotas: one per project and spec, in range.
func (c Config) validateQuotas() error {
	quotas := map[[2]string]bool{}
	for i, q := range c.Quotas {
		at := fmt.Sprintf("replay: config: quota %d (%q, %q)", i+1, q.Project, q.Spec)
		switch {
		case q.Project == "":
			return fmt.Errorf("%s: project is empty", at)
		case quotas[[2]string{q.Project, q.Spec}]:
			return fmt.Errorf("%s: given twice", at)
		case q.MaxGPUs < 1 || q.Guaranteed < 0 || q.Guaranteed > q.MaxGPUs:
			return fmt.Errorf("%s: need max_gpus ≥ 1 and 0 ≤ guaranteed_gpus ≤ max_gpus", at)
		case q.Spec == "" && q.Guaranteed > 0:
			return fmt.Errorf("%s: a guarantee is per spec", at)
		}
		quotas[[2]string{q.Project, q.Spec}] = true
	}
	return nil
}

// elastic reports whether any pool scales.
func (c Config) elastic() bool {
	for _, p := range c.Pools {
		if p.Scale != nil {
			return true
		}
	}
	return false
}
