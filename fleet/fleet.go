// Package fleet is what Kashi asks of whoever creates its machines: the Provider interface
// (create, list, get and delete machines, list flavors) with the optional ZoneFlavorer and
// Pricer, the machine, request and flavor types, the tags Kashi puts on its machines, and the
// errors providers return. The providers are its subpackages: sim (in memory, for the demo
// and tests), exec (admin scripts, Slurm-style) and ctyun (China Telecom Cloud); fleettest is
// the conformance suite they all pass. A Provider knows nothing of pools' policies; the
// scaling loop in package scaler decides, stores its intent, then calls a Provider.
package fleet

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"time"
)

// Machine states as a provider reports them.
const (
	StateCreating = "creating"
	StateRunning  = "running"
	StateDeleting = "deleting"
	StateFailed   = "failed"
)

// Tags Kashi puts on every machine it creates. List returns only machines carrying TagPool;
// the scaling loop also checks TagCluster so that two installations sharing one cloud
// account never touch each other's machines.
const (
	TagCluster = "kashi-cluster"
	TagPool    = "kashi-pool"
	TagKey     = "kashi-key"
)

// ErrCapacity is returned (wrapped) by Create when the provider is out of stock for the
// flavor: nothing was created, and retrying later may succeed.
var ErrCapacity = errors.New("fleet: out of capacity")

// ErrQuota is returned (wrapped, together with ErrCapacity) by Create when the account's
// quota does not allow another machine: nothing was created, and retrying helps only once
// the quota is raised.
var ErrQuota = errors.New("fleet: quota exceeded")

// ErrAuth is returned (wrapped) when the provider refused the credentials or their
// permissions; retrying does not help until an admin fixes them.
var ErrAuth = errors.New("fleet: credentials refused")

// ErrNotFound is returned (wrapped) by Get when no machine has the id.
var ErrNotFound = errors.New("fleet: machine not found")

// Machine is one machine as the provider sees it.
type Machine struct {
	// ID is the provider's id for the machine (a cloud instance id or order id).
	ID   string `json:"id"`
	Pool string `json:"pool"`
	// IdempotencyKey is the key of the Create that made it.
	IdempotencyKey string `json:"idempotency_key"`
	// State is one of the State constants.
	State     string            `json:"state"`
	Flavor    string            `json:"flavor,omitempty"`
	Tags      map[string]string `json:"tags,omitempty"`
	CreatedAt time.Time         `json:"created_at"`
}

// CreateRequest asks for one machine.
type CreateRequest struct {
	Pool   string `json:"pool"`
	Flavor string `json:"flavor"`
	Image  string `json:"image"`
	// IdempotencyKey names the machine slot: a Create with a key already seen returns the
	// machine it made instead of a second one. See ValidKey.
	IdempotencyKey string `json:"idempotency_key"`
	// Tags are put on the machine; they carry at least TagPool and TagKey.
	Tags map[string]string `json:"tags"`
}

// Flavor is a machine type a provider offers.
type Flavor struct {
	Name      string `json:"name"`
	GPUs      int    `json:"gpus"`
	GPUModel  string `json:"gpu_model,omitempty"`
	MemoryMiB int64  `json:"memory_mib,omitempty"`
	// InterNodeGbps is the network bandwidth between machines the provider states for the
	// flavor, in Gb/s (a cloud's guaranteed VPC bandwidth); 0 when it states none.
	InterNodeGbps int `json:"inter_node_gbps,omitempty"`
}

// Provider creates, lists and deletes machines. Implementations are safe for concurrent
// use. Every method may be called again after a crash or a timeout with the same arguments:
// Create is idempotent on the key and Delete on the id.
type Provider interface {
	// Create asks for a machine, or returns the machine an earlier Create with the same key
	// made. It returns ErrCapacity when the provider has no stock.
	Create(ctx context.Context, req CreateRequest) (Machine, error)
	// List returns the machines of pool that carry Kashi's tags, deleted ones excluded.
	List(ctx context.Context, pool string) ([]Machine, error)
	// Get returns one machine, or ErrNotFound.
	Get(ctx context.Context, id string) (Machine, error)
	// Delete releases a machine. A machine already gone counts as deleted: nil.
	Delete(ctx context.Context, id string) error
	// Flavors lists the machine types the provider offers.
	Flavors(ctx context.Context) ([]Flavor, error)
}

// ZoneFlavorer is implemented by a provider whose flavors differ by region and zone.
type ZoneFlavorer interface {
	// FlavorsIn lists the machine types offered in region and zone (empty: the region's).
	FlavorsIn(ctx context.Context, region, zone string) ([]Flavor, error)
}

// Pricer is implemented by a provider that quotes list prices.
type Pricer interface {
	// HourlyPrice returns the list price of one machine of the request's pool, flavor and
	// image for an hour, in fen (1/100 yuan).
	HourlyPrice(ctx context.Context, req CreateRequest) (int64, error)
}

// keyRE is what ValidKey accepts: short, and safe for clouds' client tokens, file names and
// shell scripts alike.
var keyRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// tagRE is what a tag key or value, a pool, flavor or image may hold: up to 128 characters
// without quotes, braces, backslashes or control characters, so a script can read the JSON
// with sed.
var tagRE = regexp.MustCompile(`^[^"\\{}\x00-\x1f\x7f]{0,128}$`)

// ValidKey reports whether key is a usable idempotency key: 1 to 64 characters of letters,
// digits, '.', '_' and '-', starting with a letter or digit.
func ValidKey(key string) bool { return keyRE.MatchString(key) }

// Validate checks a request before it goes to a provider.
func (r CreateRequest) Validate() error {
	if !ValidKey(r.IdempotencyKey) {
		return fmt.Errorf("fleet: invalid idempotency key %q", r.IdempotencyKey)
	}
	for _, v := range []string{r.Pool, r.Flavor, r.Image} {
		if !tagRE.MatchString(v) {
			return fmt.Errorf("fleet: invalid pool, flavor or image %q", v)
		}
	}
	if r.Pool == "" {
		return errors.New("fleet: pool is required")
	}
	for k, v := range r.Tags {
		if k == "" || !tagRE.MatchString(k) || !tagRE.MatchString(v) {
			return fmt.Errorf("fleet: invalid tag %q=%q", k, v)
		}
	}
	return nil
}

// Tags returns the tags of a machine Kashi creates: the installation, the pool and the key.
func Tags(cluster, pool, key string) map[string]string {
	return map[string]string{TagCluster: cluster, TagPool: pool, TagKey: key}
}

// Clone returns a copy of m whose Tags map is its own.
func (m Machine) Clone() Machine {
	m.Tags = maps.Clone(m.Tags)
	return m
}
