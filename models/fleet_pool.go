package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// PoolConfig is an admin's configuration of a pool: where its machines come from and how the
// scaling loop sizes it. Durations are in seconds; a zero duration, step, mark or cap means
// its default. PoolFields describes every field: a new one needs a row there. Every change
// is kept as a version, as JSON with these field names.
type PoolConfig struct {
	// Provider names the fleet provider ("sim", "exec", …); "static" pools are not scaled.
	Provider string `json:"provider"`
	// Backend is what runs the pool's tasks: BackendAgent ("" too, the default: Kashi's agent
	// on each machine) or BackendKubernetes (the nodes of a Kubernetes cluster that
	// KubeNodeSelector selects, reached through the Kubeconfig file, or from inside the
	// cluster when it is empty; see package kube).
	Backend          string `json:"backend"`
	KubeNodeSelector string `json:"kube_node_selector"`
	Kubeconfig       string `json:"kubeconfig"`
	Spec             string `json:"spec"`
	GPUsPerNode      int    `json:"gpus_per_node"`
	Flavor           string `json:"flavor"`
	Image            string `json:"image"`
	// Region and Zone place a cloud pool's machines (ctyun: regionID and azName); VPC,
	// Subnet and SecurityGroup are their network, DiskType and DiskGB their boot disk.
	Region        string `json:"region"`
	Zone          string `json:"zone"`
	VPC           string `json:"vpc"`
	Subnet        string `json:"subnet"`
	SecurityGroup string `json:"security_group"`
	DiskType      string `json:"disk_type"`
	DiskGB        int    `json:"disk_gb"`
	// HourlyPriceFen is the list price of one machine per hour, in fen, for a provider that
	// cannot quote it (ctyun quotes it through its price API where the key may read prices);
	// 0 for none.
	HourlyPriceFen int64 `json:"hourly_price_fen"`
	// Enabled lets the scaling loop add and remove the pool's machines.
	Enabled     bool `json:"enabled"`
	MinNodes    int  `json:"min_nodes"`
	MaxNodes    int  `json:"max_nodes"`
	Step        int  `json:"step"`
	ReservedMin int  `json:"reserved_min"`
	// ShortLaneNodes is how many of the pool's ready nodes (those of the highest ids) are kept
	// for the short lane: long tasks are never placed on them.
	ShortLaneNodes int `json:"short_lane_nodes"`
	// AnySpec: tasks that take any spec count as this pool's demand.
	AnySpec           bool    `json:"any_spec"`
	BootTimeoutS      int64   `json:"boot_timeout_s"`
	ScaleUpDelayS     int64   `json:"scale_up_delay_s"`
	MemoryHighPct     float64 `json:"memory_high_pct"`
	MemoryHighWindowS int64   `json:"memory_high_window_s"`
	MemoryLowPct      float64 `json:"memory_low_pct"`
	MemoryLowWindowS  int64   `json:"memory_low_window_s"`
	UnneededS         int64   `json:"unneeded_s"`
	CooldownUpS       int64   `json:"cooldown_up_s"`
	CooldownDownS     int64   `json:"cooldown_down_s"`
	MaxInFlight       int     `json:"max_in_flight"`
	DrainBufferS      int64   `json:"drain_buffer_s"`
	// AtMaxAlertS: a pool at its maximum with demand waiting this long raises an alert.
	AtMaxAlertS int64 `json:"at_max_alert_s"`
	// BootFailureLimit: once this many of the pool's machines in a row have failed to boot,
	// the scaling loop creates no machine for it until an admin resumes it. Before, each
	// failure makes the next machine wait: the boot timeout after the first failure, twice
	// as long after each further one, at most BootBackoffMaxS.
	BootFailureLimit int   `json:"boot_failure_limit"`
	BootBackoffMaxS  int64 `json:"boot_backoff_max_s"`
	// AdoptUnknown: a machine carrying the pool's tags that Kashi has no intent for is
	// adopted (true) or deleted (false).
	AdoptUnknown bool `json:"adopt_unknown"`
	// ReclaimOff turns idle reclaim off for the pool's tasks; the other Reclaim settings are
	// the idle time before a notice, the time a notice waits for an answer, how long a keep
	// holds the cards and how many keeps a day allows, and the setup time after a task's
	// start that is never idle. A project's lead may override them (ReclaimOverride).
	ReclaimOff         bool  `json:"reclaim_off"`
	ReclaimIdleS       int64 `json:"reclaim_idle_s"`
	ReclaimGraceS      int64 `json:"reclaim_grace_s"`
	ReclaimKeepForS    int64 `json:"reclaim_keep_for_s"`
	ReclaimKeepsPerDay int   `json:"reclaim_keeps_per_day"`
	ReclaimSetupGraceS int64 `json:"reclaim_setup_grace_s"`
	// RequireImage refuses tasks without a container image for the pool's spec.
	RequireImage bool `json:"require_image"`
	// ContainerMounts are the data mounts of the pool's task containers, comma-separated
	// "/host:/container[:ro]", sent with each assignment of a task that names an image.
	ContainerMounts string `json:"container_mounts"`
	// KubeDCGMURL is where each node of a Kubernetes pool serves dcgm-exporter's page, with
	// the node put in for $(NODE_NAME) or $(NODE_IP); empty: the pool's cards show no
	// readings (see KubeDCGMURLOf and package kube).
	KubeDCGMURL string `json:"kube_dcgm_url"`
	// UnusedBookingPct is the rule for a reservation's booked card-hours of the pool's spec
	// that its project did not use: billed at this percentage of the spec's card-hour rate,
	// 0 free, 100 in full (see billing's booking lines); nil (null) for the default,
	// DefaultUnusedBookingPct. See UnusedBooking.
	UnusedBookingPct *int `json:"unused_booking_pct"`
	// NoQuota is what a project with no quota on the pool's spec (none of the spec, none of
	// all specs) may use of it: NoQuotaAllowed (any number of cards; also "", the default,
	// so pools saved before the setting keep running what they ran), NoQuotaRefused (none:
	// its tasks of the spec are refused at submit and never placed) or NoQuotaLimit (at most
	// NoQuotaMaxGPUs cards at once). See NoQuotaRules for pools of one spec that differ.
	NoQuota        string `json:"no_quota"`
	NoQuotaMaxGPUs int    `json:"no_quota_max_gpus"`
	// AccountsByName runs the tasks of a user who has no Unix account set (User.UnixAccount)
	// as the account of the user's own name; off, such tasks fail to start on its nodes.
	AccountsByName bool `json:"accounts_by_name"`
	// AllowRoot lets the pool's tasks run as root: as an account of uid 0 their owner is
	// given, or as the agent's own user when their owner has no account. Off, the default,
	// such tasks fail to start.
	AllowRoot bool `json:"allow_root"`
	// TaskMemoryPerGPUGiB and TaskCPUsPerGPU limit each task's host memory and CPUs on a node
	// (its cgroup) to this much per GPU it holds there; 0 gives it the node's share: the
	// node's memory or CPUs times the task's GPUs there over the node's GPUs.
	TaskMemoryPerGPUGiB int `json:"task_memory_per_gpu_gib"`
	TaskCPUsPerGPU      int `json:"task_cpus_per_gpu"`
	// The attributes people choose a pool by for work across cards and nodes (see
	// PoolAttributes): IntraNodeLink is how a node's cards talk (LinkNVLink, LinkPCIe; ""
	// unstated) at IntraNodeGBytesS GB/s per card; InterNodeLink is the network between its
	// nodes (LinkNone, LinkRoCE, LinkInfiniBand, LinkEthernet; "" unstated) of
	// InterNodePorts ports of InterNodePortGbps Gb/s each per node; LocalStorageMBps and
	// SharedStorageMBps are the read throughput of a node's local disks and of the shared
	// storage, in MB/s (0 unstated).
	IntraNodeLink     string `json:"intra_node_link"`
	IntraNodeGBytesS  int    `json:"intra_node_gbytes_s"`
	InterNodeLink     string `json:"inter_node_link"`
	InterNodePorts    int    `json:"inter_node_ports"`
	InterNodePortGbps int    `json:"inter_node_port_gbps"`
	LocalStorageMBps  int    `json:"local_storage_mbps"`
	SharedStorageMBps int    `json:"shared_storage_mbps"`

	// KubePodRetentionS is how long a Kubernetes pool's ended task pods (and their env
	// Secrets) are kept, for their logs, before Kashi deletes them; 0 means an hour.
	KubePodRetentionS int64 `json:"kube_pod_retention_s"`
	// KubeScaling is who sizes a Kubernetes pool: KubeScalingCluster ("" too, the default:
	// the cluster's own autoscaler; Kashi reports its demand) or KubeScalingProvider (Kashi's
	// scaling loop, through the pool's provider). See pool_kube_scaling.go.
	KubeScaling string `json:"kube_scaling"`
}

// DefaultUnusedBookingPct is the share of the card-hour rate that booked card-hours a
// project did not use are billed at, where a pool sets none: in full, since the booking kept
// the cards from everyone else as using them would have.
const DefaultUnusedBookingPct = 100

// UnusedBooking is the pool's rule for unused booked card-hours: its UnusedBookingPct, else
// the default.
func (c PoolConfig) UnusedBooking() int {
	if c.UnusedBookingPct == nil {
		return DefaultUnusedBookingPct
	}
	return *c.UnusedBookingPct
}

// Validate checks the configuration: every setting against its range in PoolFields, then
// the rules between settings, naming every bad setting at once (FieldErrors of *FieldError
// with the JSON field names); a rule between settings is checked when both are in range.
func (c PoolConfig) Validate() error {
	var ps Problems
	for _, f := range PoolFields {
		ps.Add(f.check(c))
	}
	bad := func(fields ...string) bool { return slices.ContainsFunc(fields, ps.Has) }
	if !bad("max_nodes", "min_nodes") && c.MaxNodes < c.MinNodes {
		ps.Add(fieldErr("max_nodes", "must be at least the min nodes (%d) and at most %d; got %d", c.MinNodes, maxPoolNodes, c.MaxNodes))
	}
	if !bad("reserved_min", "max_nodes") && c.ReservedMin > c.MaxNodes {
		ps.Add(fieldErr("reserved_min", "must be 0 to the max nodes (%d); got %d", c.MaxNodes, c.ReservedMin))
	}
	if !bad("memory_low_pct", "memory_high_pct") && c.MemoryHighPct > 0 && c.MemoryLowPct > 0 && c.MemoryLowPct < 100 && c.MemoryLowPct >= c.MemoryHighPct {
		ps.Add(fieldErr("memory_low_pct", "must be under the memory high mark (%g%%); got %g%%", c.MemoryHighPct, c.MemoryLowPct))
	}
	if !bad("no_quota_max_gpus", "no_quota") && c.NoQuota == NoQuotaLimit && c.NoQuotaMaxGPUs < 1 {
		ps.Add(fieldErr("no_quota_max_gpus", "must be 1 to %d cards when projects without a quota are limited; got %d", maxNoQuotaGPUs, c.NoQuotaMaxGPUs))
	}
	if !bad("container_mounts") {
		ps.Add(checkContainerMounts(c))
	}
	checkAttributes(&ps, c, bad)
	checkBackend(&ps, c, bad)
	checkKubeDCGM(&ps, c, bad)
	checkKubeScaling(&ps, c, bad)
	return ps.Err()
}

// PoolPolicy is the stored configuration of one pool, as its latest version says.
type PoolPolicy struct {
	PoolID  int64 `gorm:"primaryKey;autoIncrement:false"`
	Version int
	Enabled bool
	Config  string
	// UpdatedAt is the store's now of the change, not the wall clock: GORM must not set it.
	UpdatedAt time.Time `gorm:"autoUpdateTime:false"`
	UpdatedBy string
}

func (PoolPolicy) TableName() string { return "pool_policies" }

// PoolPolicyVersion is one change of a pool's configuration: who, when, why, and the
// configuration before and after, as JSON ("null" before the first).
type PoolPolicyVersion struct {
	ID      int64
	PoolID  int64
	Version int
	At      time.Time
	By      string
	Note    string
	Before  string
	After   string
}

func (PoolPolicyVersion) TableName() string { return "pool_policy_versions" }

// Settings are the pool's configuration before v (zero for its first version) and after.
func (v PoolPolicyVersion) Settings() (before, after PoolConfig, err error) {
	if v.Before != "" && v.Before != "null" {
		if err := json.Unmarshal([]byte(v.Before), &before); err != nil {
			return before, after, fmt.Errorf("models: version %d's settings before: %w", v.Version, err)
		}
	}
	if err := json.Unmarshal([]byte(v.After), &after); err != nil {
		return before, after, fmt.Errorf("models: version %d's settings: %w", v.Version, err)
	}
	return before, after, nil
}

// ConfiguredPool is a pool with its current configuration.
type ConfiguredPool struct {
	Pool
	Config    PoolConfig
	Version   int
	UpdatedAt time.Time
	UpdatedBy string
}

// SavePoolConfig stores cfg as the named pool's new configuration version, creating the pool
// if needed, and returns the pool as saved. Saving a configuration equal to the current one
// adds no version. A pool's spec cannot change while it has nodes.
func (s *Store) SavePoolConfig(ctx context.Context, name string, cfg PoolConfig, by, note string, now time.Time) (ConfiguredPool, error) {
	defer s.capacity.clear() // the fleet may change
	if err := checkName("name", name, 100); err != nil {
		return ConfiguredPool{}, err
	}
	if err := cfg.Validate(); err != nil {
		return ConfiguredPool{}, err
	}
	cfg = cfg.canonical()
	now = UTC(now)
	var out ConfiguredPool
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var err error
		out, err = savePoolConfig(tx, name, cfg, by, note, now)
		return err
	})
	if err != nil {
		var fe *FieldError
		if errors.As(err, &fe) {
			return ConfiguredPool{}, err
		}
		return ConfiguredPool{}, fmt.Errorf("models: save pool %q: %w", name, err)
	}
	return out, nil
}

func savePoolConfig(tx *gorm.DB, name string, cfg PoolConfig, by, note string, now time.Time) (ConfiguredPool, error) {
	var pool Pool
	// Locked: two saves at once must not both write version N+1.
	err := forUpdate(tx).Scopes(textIs("name", name)).Take(&pool).Error
	switch {
	case errors.Is(err, gorm.ErrRecordNotFound):
		if err := checkNewPoolName("name", name); err != nil {
			return ConfiguredPool{}, err
		}
		pool = Pool{Name: name, Spec: cfg.Spec, Provider: cfg.Provider, GPUsPerNode: cfg.GPUsPerNode, Region: cfg.Region,
			Zone: cfg.Zone, CreatedAt: now}
		if err := tx.Create(&pool).Error; err != nil {
			return ConfiguredPool{}, err
		}
	case err != nil:
		return ConfiguredPool{}, err
	default:
		if pool.Spec != cfg.Spec {
			var nodes int64
			if err := tx.Model(&Node{}).Where("pool_id = ? AND state <> ?", pool.ID, NodeRemoved).Count(&nodes).Error; err != nil {
				return ConfiguredPool{}, err
			}
			if nodes > 0 {
				return ConfiguredPool{}, fieldErr("spec", "pool %q has %d nodes of %s; remove them before changing the spec", name, nodes, pool.Spec)
			}
		}
		pool.Spec, pool.Provider, pool.GPUsPerNode, pool.Region, pool.Zone = cfg.Spec, cfg.Provider, cfg.GPUsPerNode, cfg.Region, cfg.Zone
		err := tx.Model(&Pool{}).Where("id = ?", pool.ID).Updates(map[string]any{"spec": cfg.Spec, "provider": cfg.Provider,
			"gpus_per_node": cfg.GPUsPerNode, "region": cfg.Region, "zone": cfg.Zone}).Error
		if err != nil {
			return ConfiguredPool{}, err
		}
	}
	after, err := json.Marshal(cfg)
	if err != nil {
		return ConfiguredPool{}, err
	}
	var cur PoolPolicy
	err = forUpdate(tx).Where("pool_id = ?", pool.ID).Take(&cur).Error
	if err != nil && !errors.Is(err, gorm.ErrRecordNotFound) {
		return ConfiguredPool{}, err
	}
	before := cur.Config
	if before == "" {
		before = "null"
	}
	if before == string(after) {
		return ConfiguredPool{Pool: pool, Config: cfg, Version: cur.Version, UpdatedAt: cur.UpdatedAt, UpdatedBy: cur.UpdatedBy}, nil
	}
	next := PoolPolicy{PoolID: pool.ID, Version: cur.Version + 1, Enabled: cfg.Enabled, Config: string(after),
		UpdatedAt: now, UpdatedBy: truncate(by, 100)}
	if err := tx.Clauses(clause.OnConflict{UpdateAll: true}).Create(&next).Error; err != nil {
		return ConfiguredPool{}, err
	}
	v := PoolPolicyVersion{PoolID: pool.ID, Version: next.Version, At: now, By: next.UpdatedBy, Note: truncate(note, 500),
		Before: before, After: string(after)}
	if err := tx.Create(&v).Error; err != nil {
		return ConfiguredPool{}, err
	}
	return ConfiguredPool{Pool: pool, Config: cfg, Version: next.Version, UpdatedAt: now, UpdatedBy: next.UpdatedBy}, nil
}

// ConfiguredPools returns every pool that has a configuration, by name.
func (s *Store) ConfiguredPools(ctx context.Context) ([]ConfiguredPool, error) {
	var rows []struct {
		Pool
		Version   int
		Config    string
		UpdatedAt time.Time
		UpdatedBy string
	}
	err := s.db.WithContext(ctx).Table("pools").
		Select("pools.*, pool_policies.version, pool_policies.config, pool_policies.updated_at, pool_policies.updated_by").
		Joins("JOIN pool_policies ON pool_policies.pool_id = pools.id").Order("pools.name").Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("models: configured pools: %w", err)
	}
	out := make([]ConfiguredPool, len(rows))
	for i, r := range rows {
		out[i] = ConfiguredPool{Pool: r.Pool, Version: r.Version, UpdatedAt: r.UpdatedAt, UpdatedBy: r.UpdatedBy}
		if err := json.Unmarshal([]byte(r.Config), &out[i].Config); err != nil {
			return nil, fmt.Errorf("models: pool %q config: %w", r.Name, err)
		}
	}
	return out, nil
}

// ConfiguredPoolByName returns the named pool with its configuration.
func (s *Store) ConfiguredPoolByName(ctx context.Context, name string) (ConfiguredPool, error) {
	pools, err := s.ConfiguredPools(ctx)
	if err != nil {
		return ConfiguredPool{}, err
	}
	for _, p := range pools {
		if p.Name == name {
			return p, nil
		}
	}
	return ConfiguredPool{}, fmt.Errorf("models: configured pool %q: %w", name, ErrNotFound)
}

// PoolConfigVersions returns the named pool's configuration history, newest first.
func (s *Store) PoolConfigVersions(ctx context.Context, name string) ([]PoolPolicyVersion, error) {
	var out []PoolPolicyVersion
	err := s.db.WithContext(ctx).Table("pool_policy_versions").Select("pool_policy_versions.*").
		Joins("JOIN pools ON pools.id = pool_policy_versions.pool_id").Scopes(textIs("pools.name", name)).
		Order("pool_policy_versions.version DESC").Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("models: versions of pool %q: %w", name, err)
	}
	return out, nil
}

// RollBackPoolConfig makes the configuration of version the named pool's current one, as a
// new version noted "roll back to vN".
func (s *Store) RollBackPoolConfig(ctx context.Context, name string, version int, by string, now time.Time) (ConfiguredPool, error) {
	defer s.capacity.clear() // the fleet may change
	now = UTC(now)
	var out ConfiguredPool
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var v PoolPolicyVersion
		err := tx.Table("pool_policy_versions").Select("pool_policy_versions.*").
			Joins("JOIN pools ON pools.id = pool_policy_versions.pool_id").Scopes(textIs("pools.name", name)).
			Where("pool_policy_versions.version = ?", version).Take(&v).Error
		if err != nil {
			return notFound(fmt.Sprintf("pool %q version %d", name, version), err)
		}
		var cfg PoolConfig
		if err := json.Unmarshal([]byte(v.After), &cfg); err != nil {
			return fmt.Errorf("models: pool %q version %d: %w", name, version, err)
		}
		out, err = savePoolConfig(tx, name, cfg, by, fmt.Sprintf("roll back to v%d", version), now)
		return err
	})
	if err != nil {
		var fe *FieldError
		if errors.As(err, &fe) || errors.Is(err, ErrNotFound) {
			return ConfiguredPool{}, err
		}
		return ConfiguredPool{}, fmt.Errorf("models: roll back pool %q: %w", name, err)
	}
	return out, nil
}
