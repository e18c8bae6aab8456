// Package sim is an in-memory fleet.Provider: the demo's default and the tests' fake. It is
// idempotent on the key like a real cloud, and can be made slow, short of stock or failing,
// deterministically from a seed. OnRunning and OnDelete let the demo boot and stop an
// in-process agent for each machine.
package sim

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"kashi/fleet"
)

// Options configure a Provider. The zero value is a provider whose machines run at once,
// never fail and are unlimited.
type Options struct {
	// Now is the clock that boot latency is measured on; nil means time.Now.
	Now func() time.Time
	// BootLatency is how long a machine stays creating before it runs.
	BootLatency time.Duration
	// Capacity is the most machines that may exist at once; zero means no limit. A Create
	// beyond it fails with fleet.ErrCapacity.
	Capacity int
	// Faults are the injected failure rates.
	Faults
	// Seed makes the injected errors repeatable.
	Seed uint64
	// Flavors are what Flavors returns; nil means DefaultFlavors.
	Flavors []fleet.Flavor
	// OnRunning is called, outside the provider's lock, when a machine starts running.
	OnRunning func(fleet.Machine)
	// OnDelete is called, outside the provider's lock, when a machine is deleted.
	OnDelete func(fleet.Machine)
	// IDPrefix starts the machines' ids, "<prefix>-0001"; empty means "sim".
	IDPrefix string
}

// Faults are the probabilities, in [0, 1], of injected failures of a Create of a new key.
type Faults struct {
	// CapacityErrorRate: it fails with fleet.ErrCapacity although there is room.
	CapacityErrorRate float64
	// CreateErrorRate: it fails with a transient error and creates nothing.
	CreateErrorRate float64
	// LostReplyRate: it creates the machine but returns an error, as when the cloud's
	// answer is lost on the way.
	LostReplyRate float64
	// BootFailRate: the new machine ends failed instead of running.
	BootFailRate float64
}

// DefaultFlavors are the flavors of a provider without Options.Flavors.
var DefaultFlavors = []fleet.Flavor{
	{Name: "gpu.a100.8x", GPUs: 8, GPUModel: "NVIDIA A100-SXM4-80GB", MemoryMiB: 81920},
	{Name: "gpu.4090.8x", GPUs: 8, GPUModel: "NVIDIA GeForce RTX 4090", MemoryMiB: 24564},
}

// Provider is the in-memory fleet. State changes that depend on time (creating → running)
// happen on every call, and on Tick.
type Provider struct {
	opts Options

	mu       sync.Mutex
	rng      *rand.Rand
	seq      int
	machines map[string]*simMachine // by id, deleted ones removed
	byKey    map[string]string      // key → id of a machine that exists
	events   []func()               // callbacks to run once the lock is released
}

type simMachine struct {
	m      fleet.Machine
	bootAt time.Time
	fail   bool
}

// New returns an empty provider.
func New(opts Options) *Provider {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Flavors == nil {
		opts.Flavors = DefaultFlavors
	}
	return &Provider{opts: opts, rng: rand.New(rand.NewPCG(opts.Seed, 0x73696d)),
		machines: make(map[string]*simMachine), byKey: make(map[string]string)}
}

// SetCapacity changes Options.Capacity: zero means no limit, a negative value means no
// stock at all.
func (p *Provider) SetCapacity(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.opts.Capacity = n
}

// SetFaults changes the injected failure rates.
func (p *Provider) SetFaults(f Faults) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.opts.Faults = f
}

// ExhaustCapacity makes every later Create of a new key fail with fleet.ErrCapacity, as the
// conformance suite asks.
func (p *Provider) ExhaustCapacity() { p.SetCapacity(-1) }

// Tick moves the machines whose boot latency has passed to running (or failed) and calls
// OnRunning for each.
func (p *Provider) Tick() {
	p.mu.Lock()
	p.advance()
	p.unlock()
}

// Create implements fleet.Provider.
func (p *Provider) Create(ctx context.Context, req fleet.CreateRequest) (fleet.Machine, error) {
	if err := req.Validate(); err != nil {
		return fleet.Machine{}, err
	}
	if err := ctx.Err(); err != nil {
		return fleet.Machine{}, err
	}
	p.mu.Lock()
	defer p.unlock()
	p.advance()
	if id, ok := p.byKey[req.IdempotencyKey]; ok {
		return p.machines[id].m.Clone(), nil
	}
	if c := p.opts.Capacity; c < 0 || (c > 0 && len(p.machines) >= c) {
		return fleet.Machine{}, fmt.Errorf("sim: %d machines exist: %w", len(p.machines), fleet.ErrCapacity)
	}
	if p.roll(p.opts.CapacityErrorRate) {
		return fleet.Machine{}, fmt.Errorf("sim: flavor %q sold out: %w", req.Flavor, fleet.ErrCapacity)
	}
	if p.roll(p.opts.CreateErrorRate) {
		return fleet.Machine{}, errors.New("sim: injected create failure")
	}
	p.seq++
	now := p.opts.Now()
	prefix := p.opts.IDPrefix
	if prefix == "" {
		prefix = "sim"
	}
	m := fleet.Machine{ID: fmt.Sprintf("%s-%04d", prefix, p.seq), Pool: req.Pool, IdempotencyKey: req.IdempotencyKey,
		State: fleet.StateCreating, Flavor: req.Flavor, Tags: req.Tags, CreatedAt: now}
	m = m.Clone()
	sm := &simMachine{m: m, bootAt: now.Add(p.opts.BootLatency), fail: p.roll(p.opts.BootFailRate)}
	p.machines[m.ID] = sm
	p.byKey[m.IdempotencyKey] = m.ID
	p.advance()
	if p.roll(p.opts.LostReplyRate) {
		return fleet.Machine{}, errors.New("sim: injected lost reply")
	}
	return sm.m.Clone(), nil
}

// List implements fleet.Provider. Machines come in id order.
func (p *Provider) List(ctx context.Context, pool string) ([]fleet.Machine, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.unlock()
	p.advance()
	var out []fleet.Machine
	for _, sm := range p.machines {
		if sm.m.Pool == pool && sm.m.Tags[fleet.TagPool] == pool {
			out = append(out, sm.m.Clone())
		}
	}
	slices.SortFunc(out, func(a, b fleet.Machine) int { return compareIDs(a.ID, b.ID) })
	return out, nil
}

// Get implements fleet.Provider.
func (p *Provider) Get(ctx context.Context, id string) (fleet.Machine, error) {
	if err := ctx.Err(); err != nil {
		return fleet.Machine{}, err
	}
	p.mu.Lock()
	defer p.unlock()
	p.advance()
	sm, ok := p.machines[id]
	if !ok {
		return fleet.Machine{}, fmt.Errorf("sim: machine %q: %w", id, fleet.ErrNotFound)
	}
	return sm.m.Clone(), nil
}

// Delete implements fleet.Provider.
func (p *Provider) Delete(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.unlock()
	p.advance()
	sm, ok := p.machines[id]
	if !ok {
		return nil
	}
	delete(p.machines, id)
	delete(p.byKey, sm.m.IdempotencyKey)
	if f := p.opts.OnDelete; f != nil {
		m := sm.m.Clone()
		p.events = append(p.events, func() { f(m) })
	}
	return nil
}

// Flavors implements fleet.Provider.
func (p *Provider) Flavors(ctx context.Context) ([]fleet.Flavor, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return slices.Clone(p.opts.Flavors), nil
}

// advance boots the machines whose time has come. It runs under the lock.
func (p *Provider) advance() {
	now := p.opts.Now()
	var due []*simMachine
	for _, sm := range p.machines {
		if sm.m.State == fleet.StateCreating && !now.Before(sm.bootAt) {
			due = append(due, sm)
		}
	}
	slices.SortFunc(due, func(a, b *simMachine) int { return compareIDs(a.m.ID, b.m.ID) })
	for _, sm := range due {
		if sm.fail {
			sm.m.State = fleet.StateFailed
			continue
		}
		sm.m.State = fleet.StateRunning
		if f := p.opts.OnRunning; f != nil {
			m := sm.m.Clone()
			p.events = append(p.events, func() { f(m) })
		}
	}
}

// unlock releases the lock, then runs the callbacks queued under it, in order.
func (p *Provider) unlock() {
	events := p.events
	p.events = nil
	p.mu.Unlock()
	for _, f := range events {
		f()
	}
}

// roll draws against a probability.
func (p *Provider) roll(prob float64) bool {
	return prob > 0 && p.rng.Float64() < prob
}

// compareIDs orders ids by length, then bytes, so sim-10000 follows sim-9999.
func compareIDs(a, b string) int {
	return cmp.Or(cmp.Compare(len(a), len(b)), strings.Compare(a, b))
}

var _ fleet.Provider = (*Provider)(nil)
