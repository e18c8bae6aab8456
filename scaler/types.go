package scaler

import (
	"fmt"
	"time"

	"kashi/models"
	"kashi/phrase"
)

// Policy is how one pool grows and shrinks. A zero field takes its default (WithDefaults).
type Policy struct {
	// MinNodes and MaxNodes bound the pool's size (nodes plus machines booting).
	MinNodes int
	MaxNodes int
	// Step is how many machines one scale action adds or drains ("一组"); zero means 1.
	Step int
	// ReservedMin is how many ready nodes without a task (or machines booting) the loop
	// keeps as a warm reserve, so a task can start without waiting for a boot.
	ReservedMin int
	// BootTimeout: a machine whose agent has not registered this long after it was asked
	// for is deleted.
	BootTimeout time.Duration
	// BootFailureLimit: once this many machines in a row have failed to boot (timed out or
	// failed at the provider), the pool asks for none until an admin resumes it. Before, each
	// failure makes the pool wait before it asks for another (BootRun.Backoff), at most
	// BootBackoffMax.
	BootFailureLimit int
	BootBackoffMax   time.Duration
	// ScaleUpDelay: admissible demand that waited longer than this triggers a scale-up.
	ScaleUpDelay time.Duration
	// MemoryHighPct over MemoryHighWindow: mean GPU memory use of the pool above the mark
	// for the whole window triggers a scale-up of one step. A mark of 100 turns it off.
	MemoryHighPct    float64
	MemoryHighWindow time.Duration
	// MemoryLowPct over MemoryLowWindow: mean memory use must stay below the mark for the
	// whole window before the pool shrinks. A mark of 100 or more turns the condition off.
	MemoryLowPct    float64
	MemoryLowWindow time.Duration
	// UnneededTime: the pool shrinks only once some node has had no task this long.
	UnneededTime time.Duration
	// CooldownAfterUp: no scale-up, and no new drain, this long after a scale-up (a pool
	// under its minimum grows anyway). CooldownAfterDown: no new drain this long after one.
	CooldownAfterUp   time.Duration
	CooldownAfterDown time.Duration
	// MaxInFlight caps the machines booting at once; zero means max(Step, its default).
	MaxInFlight int
	// DrainBuffer: a drained node still busy after this long takes tasks again, unless the
	// pool is over its maximum.
	DrainBuffer time.Duration
	// ShortLaneNodes is the short lane's reserve: that many ready nodes, those of the highest
	// ids (scheduler.MarkShortOnly), take short tasks only. The loop never drains them to
	// shrink the pool, nor counts them as the warm reserve of ReservedMin.
	ShortLaneNodes int
	// AtMaxAlertAfter: a pool at MaxNodes while admissible demand waits (ReasonDemandWaiting)
	// this long raises an alert (PoolSize.AtMaxAlert).
	AtMaxAlertAfter time.Duration
	// Reclaim is how the pool's idle tasks lose their cards.
	Reclaim ReclaimPolicy
}

// defaultPolicy is the policy of a pool that sets nothing, as the pool settings table
// (models.PoolFields) gives it. The table does not change while the process runs, so it is
// read once here rather than on every call of WithDefaults, which DecideScale makes for
// every pool at every tick.
var defaultPolicy = PolicyOf(models.PoolConfig{}.WithDefaults())

// WithDefaults returns p with every zero or negative field set to the default that the
// pool settings table (models.PoolFields) gives the setting it comes from (PolicyOf); a
// zero MaxInFlight becomes max(Step, its default). It neither reflects nor allocates: the
// scaling loop and the replay call it for every pool at every tick.
func (p Policy) WithDefaults() Policy {
	d := defaultPolicy
	orDefault(&p.MinNodes, d.MinNodes)
	orDefault(&p.MaxNodes, d.MaxNodes)
	orDefault(&p.Step, d.Step)
	orDefault(&p.ReservedMin, d.ReservedMin)
	orDefault(&p.BootTimeout, d.BootTimeout)
	orDefault(&p.BootFailureLimit, d.BootFailureLimit)
	orDefault(&p.BootBackoffMax, d.BootBackoffMax)
	orDefault(&p.ScaleUpDelay, d.ScaleUpDelay)
	orDefault(&p.MemoryHighPct, d.MemoryHighPct)
	orDefault(&p.MemoryHighWindow, d.MemoryHighWindow)
	orDefault(&p.MemoryLowPct, d.MemoryLowPct)
	orDefault(&p.MemoryLowWindow, d.MemoryLowWindow)
	orDefault(&p.UnneededTime, d.UnneededTime)
	orDefault(&p.CooldownAfterUp, d.CooldownAfterUp)
	orDefault(&p.CooldownAfterDown, d.CooldownAfterDown)
	orDefault(&p.MaxInFlight, max(p.Step, d.MaxInFlight))
	orDefault(&p.DrainBuffer, d.DrainBuffer)
	orDefault(&p.ShortLaneNodes, d.ShortLaneNodes)
	orDefault(&p.AtMaxAlertAfter, d.AtMaxAlertAfter)
	p.Reclaim = p.Reclaim.WithDefaults()
	return p
}

// orDefault sets *x to def when it is zero or negative.
func orDefault[T int | float64 | time.Duration](x *T, def T) {
	if *x <= 0 {
		*x = def
	}
}

// Snapshot is everything DecideScale looks at. It is plain data.
type Snapshot struct {
	// Pools are the pools the loop manages.
	Pools []Pool
	// Tasks are the running tasks, for idle reclaim, each with its own policy.
	Tasks []IdleTask
}

// Pool is one managed pool.
type Pool struct {
	Name        string
	GPUsPerNode int
	Policy      Policy
	// Nodes are the pool's registered nodes (removed ones left out).
	Nodes []Node
	// Booting are machines asked of the provider whose agent has not registered yet.
	Booting []BootingMachine
	// Demand is the pool's waiting tasks, quota-blocked ones included (and ignored).
	Demand []Demand
	// Memory is the pool's mean GPU memory use over time, oldest first, reaching back at
	// least the longer memory window.
	Memory []MemoryPoint
	// LastScaleUp and LastScaleDown are the pool's last scale-up and drain; zero if never.
	LastScaleUp   time.Time
	LastScaleDown time.Time
	// Bookings are the reservations counted against the pool whose windows end after now
	// and begin within its lead time (see models.BookingLead).
	Bookings []PoolBooking
	// AtMaxSince is since when the pool has been at its maximum with demand waiting, as the
	// last tick recorded it; zero if it was not.
	AtMaxSince time.Time
	// Boot is the pool's run of machines that failed to boot, as the store keeps it.
	Boot BootRun
	// ClusterScaled: the cluster's own autoscaler sizes the pool (a Kubernetes pool of
	// kube_scaling cluster). DecideScale reports its size and demand and acts on nothing.
	ClusterScaled bool
}

// BootRun is a pool's machines that failed to boot in a row: how many, when the last did,
// and since when the pool has stopped asking for machines (zero while it has not). A machine
// that boots ends the run, and so does an admin's resume.
type BootRun struct {
	Failures     int
	LastAt       time.Time
	FailingSince time.Time
}

// Failing reports whether the pool has stopped asking for machines until an admin resumes
// it.
func (r BootRun) Failing() bool { return !r.FailingSince.IsZero() }

// Backoff is how long the pool waits after its last boot failure before it asks for another
// machine: pol.BootTimeout after the first failure in a row, twice as long after each
// further one, at most pol.BootBackoffMax; zero without failures. pol has its defaults.
func (r BootRun) Backoff(pol Policy) time.Duration {
	if r.Failures <= 0 {
		return 0
	}
	d := pol.BootTimeout
	for range r.Failures - 1 {
		if d >= pol.BootBackoffMax {
			break
		}
		d *= 2
	}
	return min(d, pol.BootBackoffMax)
}

// RetryAt is when the back-off after the last failure ends; zero without failures.
func (r BootRun) RetryAt(pol Policy) time.Time {
	if r.Failures <= 0 {
		return time.Time{}
	}
	return r.LastAt.Add(r.Backoff(pol))
}

// failed is the run after one more machine failed to boot at now: the pool fails once the
// run reaches pol.BootFailureLimit (models.Store.RecordBootFailure keeps the same count).
func (r BootRun) failed(now time.Time, pol Policy) BootRun {
	r.Failures++
	r.LastAt = now
	if r.FailingSince.IsZero() && r.Failures >= pol.BootFailureLimit {
		r.FailingSince = now
	}
	return r
}

// Node states a Node may have (the models.Node* values).
const (
	NodeStateReady    = "ready"
	NodeStateDraining = "draining"
	NodeStateLost     = "lost"
)

// Node is one registered node of a pool.
type Node struct {
	ID int64
	// MachineID is the provider's id of its machine; empty for a node no provider made,
	// which the loop never removes.
	MachineID string
	// State is NodeStateReady, NodeStateDraining or NodeStateLost.
	State string
	Tasks []Task
	// UnneededSince is the persisted time the node was first seen without a task; zero if
	// never (DecideScale sets it in the plan).
	UnneededSince time.Time
	// DrainSince is when the loop drained the node; zero when it did not (a node drained
	// by hand is left alone).
	DrainSince time.Time
}

// PoolBooking is a reservation's cards held in a pool.
type PoolBooking struct {
	Project string
	GPUs    int
}

// Task is a task running on a node.
type Task struct {
	ID      int64
	Project string
	// EstEnd is the expected end (start + estimate); zero when unknown.
	EstEnd time.Time
	// MaxEnd is when its max runtime runs out; zero when it has none.
	MaxEnd time.Time
}

// BootingMachine is a machine asked for whose agent has not registered.
type BootingMachine struct {
	// Key is the idempotency key of its intent; ID the provider's id (empty until known).
	Key       string
	ID        string
	CreatedAt time.Time
	// Failed is true when the provider reports the machine failed.
	Failed bool
}

// Demand is one waiting task counted against a pool.
type Demand struct {
	TaskID int64
	GPUs   int
	// Since is when the task became admissible (ready and queued).
	Since time.Time
	// QuotaBlocked is true when the task waits for its project's quota: it never triggers
	// a scale-up.
	QuotaBlocked bool
}

// MemoryPoint is a pool's mean GPU memory use, in percent, at a sample time.
type MemoryPoint struct {
	At      time.Time
	UsedPct float64
}

// ActionKind names what an action does.
type ActionKind string

// Action kinds.
const (
	// ActionScaleUp adds Count machines to Pool.
	ActionScaleUp ActionKind = "scale-up"
	// ActionDrain stops NodeID from taking new tasks; it is removed once empty.
	ActionDrain ActionKind = "drain"
	// ActionUndrain gives a drain up: NodeID takes tasks again.
	ActionUndrain ActionKind = "undrain"
	// ActionRemove deletes the machine of NodeID, drained and empty.
	ActionRemove ActionKind = "remove"
	// ActionDeleteMachine deletes a booting machine (MachineKey, MachineID).
	ActionDeleteMachine ActionKind = "delete-machine"
	// ActionIdleNotice tells the owner of TaskID and its project's leads its cards are idle
	// and will be reclaimed.
	ActionIdleNotice ActionKind = "idle-notice"
	// ActionClearNotice withdraws the notice of TaskID: its cards are busy again.
	ActionClearNotice ActionKind = "clear-notice"
	// ActionReclaim stops TaskID and marks it reclaimed.
	ActionReclaim ActionKind = "reclaim"
	// ActionAdopt records a machine found at the provider as the pool's (reconcile only).
	ActionAdopt ActionKind = "adopt"
)

// Reason is a stable code for why the scaling loop acted or did not; pages translate
// it, Detail gives the numbers as phrases that pages translate too.
type Reason string

// Reasons to act.
const (
	ReasonDemandWaiting Reason = "demand-waiting"
	ReasonMemoryHigh    Reason = "memory-high"
	ReasonBelowMin      Reason = "below-min"
	ReasonReservedMin   Reason = "reserved-min"
	// ReasonBooked: reservations hold cards of the pool now or within its boot timeout.
	ReasonBooked        Reason = "booked"
	ReasonNodeUnneeded  Reason = "node-unneeded"
	ReasonAboveMax      Reason = "above-max"
	ReasonDrainedEmpty  Reason = "drained-empty"
	ReasonDrainTooLong  Reason = "drain-too-long"
	ReasonBootTimeout   Reason = "boot-timeout"
	ReasonMachineFailed Reason = "machine-failed"
	ReasonIdleTask      Reason = "idle-task"
	ReasonActiveAgain   Reason = "active-again"
	ReasonNoAnswer      Reason = "no-answer"
	// ReasonReclaimOff: a notice withdrawn because idle reclaim is now off for its task.
	ReasonReclaimOff Reason = "reclaim-off"
	// Reconcile's reasons: a tagged machine without an intent, a second machine under one
	// key, a machine whose intent was deleted.
	ReasonUnknownMachine   Reason = "unknown-machine"
	ReasonDuplicateMachine Reason = "duplicate-machine"
	ReasonLeftoverMachine  Reason = "leftover-machine"
)

// Reasons not to act (Skip).
const (
	ReasonAtMaxSize     Reason = "at-max-size"
	ReasonAtMinSize     Reason = "at-min-size"
	ReasonInCooldown    Reason = "in-cooldown"
	ReasonInFlightCap   Reason = "in-flight-cap"
	ReasonNoDemand      Reason = "no-demand"
	ReasonDemandPending Reason = "demand-pending"
	ReasonMemoryNotLow  Reason = "memory-not-low"
	ReasonNoneUnneeded  Reason = "none-unneeded"
	ReasonNoRemovable   Reason = "no-removable-node"
	// ReasonCoveredByBooting: demand waited, but the machines booting will hold it.
	ReasonCoveredByBooting Reason = "covered-by-booting"
	// ReasonBootBackoff: machines failed to boot lately, and the back-off after the last
	// failure has not run out. ReasonBootFailing: as many failed in a row as the policy
	// allows, and the pool asks for no machine until an admin resumes it.
	ReasonBootBackoff Reason = "boot-backoff"
	ReasonBootFailing Reason = "boot-failing"
	// ReasonClusterScales: the cluster's own autoscaler sizes the pool; the loop only
	// reports its demand.
	ReasonClusterScales Reason = "cluster-scales"
)

// Action is one thing to do. Which fields are set depends on Kind.
type Action struct {
	Kind   ActionKind
	Pool   string
	Count  int
	NodeID int64
	// MachineKey and MachineID name a machine (ActionDeleteMachine, ActionRemove).
	MachineKey string
	MachineID  string
	TaskID     int64
	Reason     Reason
	// Detail gives the numbers behind the decision.
	Detail phrase.List
	// From and To are the pool's size before and after (nodes not draining, plus machines
	// booting).
	From, To int
}

// String is the action in one line, as logs and the pools page's tooltips show it.
func (a Action) String() string {
	switch a.Kind {
	case ActionScaleUp:
		return fmt.Sprintf("%s pool %d→%d (+%d): %s", a.Pool, a.From, a.To, a.Count, a.Detail)
	case ActionDrain, ActionUndrain, ActionRemove:
		return fmt.Sprintf("%s pool %d→%d, %s node %d: %s", a.Pool, a.From, a.To, a.Kind, a.NodeID, a.Detail)
	case ActionDeleteMachine:
		return fmt.Sprintf("%s pool: delete machine %s: %s", a.Pool, a.MachineKey, a.Detail)
	}
	return fmt.Sprintf("%s task %d: %s", a.Kind, a.TaskID, a.Detail)
}

// Skip is a reason the loop did not act on a pool.
type Skip struct {
	Pool   string
	Reason Reason
	Detail phrase.List
}

// PoolSize is a pool's size now and the size the plan heads to.
type PoolSize struct {
	Pool string
	// Size counts nodes (removed excluded) and machines booting.
	Size int
	// Desired is Size after the plan: plus machines asked for, minus nodes drained or
	// machines deleted.
	Desired int
	// DemandGPUs is the pool's admissible demand (quota-blocked tasks left out), whatever
	// its wait.
	DemandGPUs int
	// AtMaxSince is since when the pool has been at its maximum while demand that waited
	// longer than the scale-up delay needs more nodes; zero when it is not. AtMaxAlert is
	// true once that has lasted the policy's AtMaxAlertAfter.
	AtMaxSince time.Time
	AtMaxAlert bool
	// Boot is the pool's run of boot failures after the plan's deletions (the replay keeps
	// it; the server counts each failure in the store as it applies the deletion).
	Boot BootRun
}

// Plan is the outcome of DecideScale.
type Plan struct {
	// Actions in the order to apply them: per pool (by name) deletes, undrains, removes,
	// drains, scale-up; then the idle-reclaim actions.
	Actions []Action
	Skips   []Skip
	Sizes   []PoolSize
	// Unneeded is the new "first seen without a task" time of every ready node that has
	// none; the loop persists it so a restart does not reset the timers.
	Unneeded map[int64]time.Time
}
