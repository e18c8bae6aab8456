package api

import (
	"encoding/json"
	"time"
)

// PoolBoot is a pool's machines that failed to boot in a row, under "boot" in each pool of
// GET /api/v1/pools and in the answer of POST /api/v1/pools/{name}/resume. A pool backs off
// after each failure (no machine is asked for before RetryAt) and fails once Failures reaches
// Limit: it then asks for no machine until an admin resumes it. A machine that boots ends
// the run.
type PoolBoot struct {
	// Failing is true while the pool has stopped asking for machines (its state is
	// "failing"); FailingSince says since when.
	Failing      bool       `json:"failing"`
	FailingSince *time.Time `json:"failing_since"`
	// Failures is how many machines in a row failed to boot; Limit how many stop the pool.
	Failures int `json:"failures"`
	Limit    int `json:"limit"`
	// LastFailureAt is when the last failed; LastFailureReason its code (boot-timeout,
	// machine-failed) and LastFailure its numbers in English. Null and empty without
	// failures.
	LastFailureAt     *time.Time `json:"last_failure_at"`
	LastFailureReason string     `json:"last_failure_reason"`
	LastFailure       string     `json:"last_failure"`
	// RetryAt is when the back-off after the last failure ends, while the pool backs off;
	// null when it does not (no failure, the back-off over, or the pool failing).
	RetryAt *time.Time `json:"retry_at"`
}

// Pool is one configured pool as GET /api/v1/pools shows it: its size, desired size and
// state at the scaling loop's last look, its configuration (the body POST
// /api/v1/pools/{name} takes, as the server's store writes it), its nodes and machines
// booting, why the loop did not act then (Skips, since StatusAt) and its latest events.
type Pool struct {
	Name      string          `json:"name"`
	Spec      string          `json:"spec"`
	Provider  string          `json:"provider"`
	Size      int             `json:"size"`
	Desired   int             `json:"desired"`
	State     string          `json:"state"`
	Version   int             `json:"version"`
	UpdatedAt time.Time       `json:"updated_at"`
	UpdatedBy string          `json:"updated_by"`
	Config    json.RawMessage `json:"config"`
	Nodes     []PoolNode      `json:"nodes"`
	Booting   []PoolMachine   `json:"booting"`
	// StatusAt is the scaling loop's last look at the pool, Skips why it did not act then.
	StatusAt *time.Time   `json:"status_at"`
	Skips    []PoolSkip   `json:"skips"`
	Events   []ScaleEvent `json:"events"`
	Boot     PoolBoot     `json:"boot"`
	// DemandGPUs is the cards the pool's admissible demand wanted at the scaling loop's last
	// look (its latest size sample, which the kashi_pool_demand_gpus gauge reads too).
	DemandGPUs int `json:"demand_gpus"`
	// Cluster is a Kubernetes pool's cluster as this replica sees it; nil for an agent pool.
	Cluster *PoolCluster `json:"cluster"`
}

// PoolCluster is a Kubernetes pool's cluster as this replica's controller sees it, under
// "cluster" in each Kubernetes pool of GET /api/v1/pools and on the pools page: whether its
// apiserver answered the last look (every 30 s), the last error reaching it or acting on
// it, whether this replica holds the pool's Lease, and, while it does, the selected nodes
// and the pods of Kashi's tasks there (the counts are 0 without the Lease).
type PoolCluster struct {
	// Watched is false where this replica runs no controller of the pool: another replica
	// leads the control loops, or they have not looked at the pool yet. The rest is then
	// empty.
	Watched     bool       `json:"watched"`
	Reached     bool       `json:"reached"`
	CheckedAt   *time.Time `json:"checked_at"`
	LastError   string     `json:"last_error"`
	LastErrorAt *time.Time `json:"last_error_at"`
	LeaseHeld   bool       `json:"lease_held"`
	// NodesReady and NodesNotReady count the selected nodes by their Ready condition;
	// NodesCordoned those cordoned among them.
	NodesReady    int `json:"nodes_ready"`
	NodesNotReady int `json:"nodes_not_ready"`
	NodesCordoned int `json:"nodes_cordoned"`
	// Pods counts the pods of Kashi's tasks that have not ended and are not being deleted.
	Pods int `json:"pods"`
}

// PoolNode is one node of a pool: its state, the machine it runs on and its cards.
type PoolNode struct {
	ID         int64     `json:"id"`
	Hostname   string    `json:"hostname"`
	State      string    `json:"state"`
	MachineID  string    `json:"machine_id"`
	GPUs       int       `json:"gpus"`
	LastSeenAt time.Time `json:"last_seen_at"`
}

// PoolMachine is a machine a pool asked its provider for whose agent has not registered.
type PoolMachine struct {
	Key        string    `json:"key"`
	ProviderID string    `json:"provider_id"`
	State      string    `json:"state"`
	CreatedAt  time.Time `json:"created_at"`
}

// PoolSkip is why the scaling loop did not act on a pool: a reason code and its sentence in
// the caller's language.
type PoolSkip struct {
	Reason string `json:"reason"`
	Detail string `json:"detail"`
}

// ScaleEvent is one scaling event: when, what, the size before and after, the typed reason
// and the numbers behind it (Detail, in the caller's language).
type ScaleEvent struct {
	At         time.Time `json:"at"`
	Kind       string    `json:"kind"`
	From       int       `json:"from"`
	To         int       `json:"to"`
	Reason     string    `json:"reason"`
	Detail     string    `json:"detail"`
	NodeID     *int64    `json:"node_id,omitempty"`
	MachineKey string    `json:"machine_key,omitempty"`
}
