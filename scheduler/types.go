package scheduler

import (
	"fmt"
	"time"
)

// Policy defaults.
const (
	// DefaultETADepth is how many capacity-waiting tasks per asked spec get a simulated ETA.
	DefaultETADepth = 2000
)

// Snapshot is everything Decide looks at, read from the store in one transaction. It is plain
// data: Decide neither keeps nor changes it.
type Snapshot struct {
	Nodes   []Node
	Running []Running
	Pending []Pending
	// Projects holds the fairness inputs by project name. A project not listed has no recent
	// usage and share weight 1.
	Projects map[string]Project
	// Quotas holds each project's quota state by project name. A project not listed is
	// unlimited.
	Quotas map[string]QuotaState
	// Bookings are the approved reservations; those holding cards at now count (Booking.Holds).
	Bookings []Booking
	// LostBefore: a live node last seen before it is given up as lost. Zero gives up no node
	// (the loop has not run long enough for agents to report after a server restart).
	LostBefore time.Time
	// Growth is what the pools the scaling loop grows are expected to add, and Runtimes how
	// long ended tasks ran against their estimates; only the ETAs read them.
	Growth   []Growth
	Runtimes Runtimes
	// Stretch calibrates the ETAs from how the queue's recent estimates fared (see
	// ETAHistory); zero stretches nothing.
	Stretch ETAStretch
}

// Growth is the capacity a pool whose machines the scaling loop adds is expected to bring to
// its place (its spec in its region) while tasks wait for cards there, as the loop asks for
// it: the machines booting now when each is expected to be ready, then machines for the
// demand — the cards of the tasks waiting for the pool's spec (any spec, with AnySpec) once
// each has waited Delay — beyond those asked already, rounded up to Step nodes, at most Room
// nodes in all and Batch booting at once, not within Every of the pool's last growth
// (LastUp) nor of the last ask, each asked at the loop's next pass (half its Period later on
// average) and ready Boot after. Only the p50 ETAs count on it: machines may fail to boot,
// and the p90 is a bound.
type Growth struct {
	Spec, Region string
	AnySpec      bool
	GPUsPerNode  int
	Booting      []time.Time
	Room, Batch  int
	Step         int
	Delay, Boot  time.Duration
	Every        time.Duration
	LastUp       time.Time
	Period       time.Duration
}

// Node is one machine. Its GPUs are free unless a Running task holds them.
type Node struct {
	ID   int64
	Pool string
	Spec string
	// Region is where the node's pool is (the pool setting region); "" for none.
	Region string
	GPUs   []GPU
	// Schedulable is false while the node is draining, lost or not yet ready; such a node
	// takes no new task and its cards count for no capacity.
	Schedulable bool
	// Live is true for a ready or draining node (one that can still be lost); LastSeen is
	// its last sign of life.
	Live     bool
	LastSeen time.Time
	// ShortOnly keeps the node for the short lane: long tasks are never placed on it (the
	// pool's short-lane reserve, see MarkShortOnly).
	ShortOnly bool
	// InterNodeGbps is the network from the node to the other nodes of its pool, as its pool
	// states it (Gb/s; 0 unstated), NoInterNode true when the pool states there is none, and
	// StorageMBps the best storage read throughput it states (MB/s; 0 unstated). See
	// Pending.MinInterNodeGbps.
	InterNodeGbps int
	NoInterNode   bool
	StorageMBps   int
}

// GPU is one card of a node.
type GPU struct {
	ID    int64
	Index int
	// Outside is true while the card is used outside Kashi: at its latest reading processes
	// of no task (another workload's pod, a process started by hand) hold memory on it. No
	// task is placed on it then, nor is it counted free.
	Outside bool
}

// Running is a task that holds GPUs (starting or running).
type Running struct {
	TaskID  int64
	Project string
	// GPUIDs are the cards it holds; their nodes give its spec.
	GPUIDs    []int64
	StartedAt time.Time
	// EstRuntime is the estimated runtime (estimated card-hours / GPUs); zero if unknown.
	EstRuntime time.Duration
	// MaxRuntime is the runtime after which the task is stopped; zero means no limit.
	MaxRuntime time.Duration
	// Service is true for an inference service's replica (its cards count to the service cap).
	Service bool
	// ReclaimAt is when idle reclaim stops the task if its cards stay idle and nobody
	// answers its notice; zero when it would not. The ETAs take it as the task's likely end.
	ReclaimAt time.Time
}

// Pending is a queued task.
type Pending struct {
	ID      int64
	Project string
	// ProjectID is the store's id of Project; Decide does not read it.
	ProjectID int64
	// Spec is the wanted GPU spec; empty means any. Specs, when set, are the specs the task
	// accepts instead, any of them.
	Spec  string
	Specs []string
	// Regions are the regions the task accepts; empty means any.
	Regions []string
	// DataRegion is where the task's data is (its data check's region): of the places the
	// task may start now, those of that region come first. Empty for none.
	DataRegion string
	// Queue is models.QueueShort or models.QueueLong.
	Queue string
	// Priority is one of the Priority constants.
	Priority    string
	GPUs        int
	SubmittedAt time.Time
	// EstRuntime is the estimated runtime (estimated card-hours / GPUs, see EstRuntime);
	// zero if unknown.
	EstRuntime time.Duration
	// MaxRuntime is the runtime after which the task is stopped; zero means no limit.
	MaxRuntime time.Duration
	DataReady  bool
	Deferrable bool
	// Service is true for an inference service's replica: it queues in the service lane.
	Service bool
	// Rerun is true for a task queued again after an attempt ended (its node lost): it comes
	// first in its lane, before every priority.
	Rerun bool
	// MinInterNodeGbps and MinStorageMBps keep the task off the nodes whose pool states less
	// (or nothing): Node.InterNodeGbps, Node.StorageMBps; 0 asks nothing. A task larger than
	// a node of a place never goes where the pool states there is no network between nodes
	// (Node.NoInterNode) unless AllowNoInterconnect. Kept off every place it accepts, it
	// waits with ReasonNoSuitablePlace.
	MinInterNodeGbps    int
	MinStorageMBps      int
	AllowNoInterconnect bool
}

// EstRuntime converts a task's estimated card-hours into its estimated runtime on gpus
// cards; zero when either is not positive.
func EstRuntime(estGPUHours float64, gpus int) time.Duration {
	if estGPUHours <= 0 || gpus <= 0 {
		return 0
	}
	return time.Duration(estGPUHours / float64(gpus) * float64(time.Hour))
}

// Project is one project's fairness inputs.
type Project struct {
	// Share is the project's share weight; zero or negative counts as 1.
	Share float64
	// Usage is the project's recent usage in card-hours, already decayed by the caller.
	Usage float64
}

// QuotaState is what the quota rules say about one project at snapshot time. The zero value
// limits nothing.
type QuotaState struct {
	// MaxGPUs caps the GPUs the project holds at once, all specs together; zero means no cap.
	MaxGPUs int
	// MaxGPUsBySpec caps the GPUs the project holds at once per spec; a spec not listed has
	// no cap.
	MaxGPUsBySpec map[string]int
	// BudgetExhausted is true once the project's card-hour budget is spent.
	BudgetExhausted bool
	// ExhaustedSpecs lists the specs whose card-hour budget the project has spent.
	ExhaustedSpecs map[string]bool
	// Guaranteed is the project's guaranteed GPUs (保底份额) per spec: cards of that spec
	// that other projects may use only with short tasks, which give them back within the
	// short lane's runtime limit.
	Guaranteed map[string]int
	// Overflow allows the project to run beyond its quota; such placements carry Overflow.
	Overflow bool
	// MaxServiceGPUs caps the GPUs the project's services hold at once, all specs together,
	// and MaxServiceGPUsBySpec per spec; zero or absent means no cap of their own. Overflow
	// does not pass it.
	MaxServiceGPUs       int
	MaxServiceGPUsBySpec map[string]int
	// NoQuotaMaxGPUs caps, for each spec the project has no quota on whose pools restrict
	// such projects (models.NoQuotaRules), the cards of it the project holds at once; 0
	// keeps it off the spec. A spec not listed has no such cap. Overflow does not pass it:
	// a task that fits no spec it may use waits with DetailNoQuota.
	NoQuotaMaxGPUs map[string]int
}

// Policy is the scheduler's configuration. The zero value is usable: no off-peak gating, no
// backfill. A task's lane is its Queue, which the store checked at submit against
// models.TaskLimits (the one place the short lane's runtime limit is kept).
type Policy struct {
	// OffPeakStart and OffPeakEnd bound the off-peak window as offsets from local midnight
	// in Location; the window is [start, end) and wraps past midnight when start > end.
	// Equal values mean there is no window and deferrable tasks are never held back.
	OffPeakStart time.Duration
	OffPeakEnd   time.Duration
	// Location is the time zone of the off-peak window; nil means UTC.
	Location *time.Location
	// Backfill lets later tasks start ahead of a blocked head when they do not delay its
	// reservation (EASY backfill). Without it a blocked head stops its spec.
	Backfill bool
	// ETADepth is how many capacity-waiting tasks per asked spec get a simulated ETA; zero
	// means DefaultETADepth, negative means none.
	ETADepth int
}

// DefaultPolicy is the shipped policy: off-peak 22:00–08:00 in loc, backfill.
func DefaultPolicy(loc *time.Location) Policy {
	return Policy{
		OffPeakStart: 22 * time.Hour,
		OffPeakEnd:   8 * time.Hour,
		Location:     loc,
		Backfill:     true,
	}
}

// Plan is the outcome of one Decide: what starts where, and why everything else waits.
type Plan struct {
	// Placements are the tasks to start, in the order they were decided.
	Placements []Placement
	// Waiting holds every pending task not placed, in queue order.
	Waiting []Waiting
	// Reservations are the blocked heads' reservations, at most one per spec.
	Reservations []Reservation
	// LostNodes are the live nodes silent since before Snapshot.LostBefore, by id: their
	// tasks end failed at the node's last sign of life.
	LostNodes []int64
	// Stops are the running tasks past their max runtime, to be stopped (timed out).
	Stops []Stop
}

// Stop asks a running task's node to stop it.
type Stop struct {
	TaskID int64
	// MaxRuntime is the limit the task ran past.
	MaxRuntime time.Duration
}

// Placement gives cards to one task.
type Placement struct {
	TaskID int64
	// Spec and Region are those of the chosen nodes (useful when the task accepts several).
	Spec, Region string
	// Why says why there: WhyDataRegion, WhyOnly or WhyFirstFree.
	Why string
	// NodeIDs is one node, or the whole nodes of a task larger than any node.
	NodeIDs []int64
	// GPUIDs are exactly the asked number of cards, node by node, by index.
	GPUIDs []int64
	// Overflow is true when the task runs beyond its project's quota.
	Overflow bool
	// Backfill is true when the task starts ahead of a blocked head of its spec.
	Backfill bool
}

// Reason says why a task waits. The values are stable codes that pages and the API show;
// api.WaitReasons() is their wire form (the scheduler may not import api), and a test in the
// main package holds the two lists equal.
type Reason string

// Reasons.
const (
	// ReasonNoFreeGPUs: not enough free cards of Waiting.Spec now.
	ReasonNoFreeGPUs Reason = "no-free-gpus"
	// ReasonDataNotReady: the task's data is not ready yet.
	ReasonDataNotReady Reason = "data-not-ready"
	// ReasonOffPeakOnly: a deferrable task outside the off-peak window, and no card it could
	// use sits free without someone else waiting for it.
	ReasonOffPeakOnly Reason = "off-peak-only"
	// ReasonQuota: the project is at its concurrent limit or out of budget (Waiting.Detail
	// says which) and may not overflow.
	ReasonQuota Reason = "quota"
	// ReasonBehind: cards that would fit are free, but they are kept for the reservation of
	// Waiting.Ahead, which is ahead in the queue.
	ReasonBehind Reason = "behind"
	// ReasonNoSuchCapacity: the task asks more than the schedulable nodes of Waiting.Spec
	// could ever give, even all free.
	ReasonNoSuchCapacity Reason = "no-such-capacity"
	// ReasonInvalid: the task asks for fewer than one GPU.
	ReasonInvalid Reason = "invalid"
	// ReasonReservationWindow: the cards the task could take are booked for its own project
	// from a window that has not opened; it starts when the window opens (ETAP50).
	ReasonReservationWindow Reason = "reservation-window"
	// ReasonNoSuitablePlace: every place the task accepts lacks what it needs of its pool;
	// Waiting.Detail names what: DetailNoInterconnect, DetailInterNodeBelow or
	// DetailStorageBelow (the first of these, in that order, that keeps it from a place).
	ReasonNoSuitablePlace Reason = "no-suitable-place"
)

// Details that refine ReasonNoSuitablePlace: the attribute a place lacks.
const (
	// DetailNoInterconnect: the task is larger than a node and the pool states its nodes
	// have no network between them; the task does not allow that (AllowNoInterconnect).
	DetailNoInterconnect = "no-interconnect"
	// DetailInterNodeBelow: the pool states less network between nodes than the task's
	// minimum, or states none.
	DetailInterNodeBelow = "inter-node-below-minimum"
	// DetailStorageBelow: the pool states less storage read throughput than the task's
	// minimum, or states none.
	DetailStorageBelow = "storage-below-minimum"
)

// Details that refine ReasonQuota.
const (
	DetailBudgetExhausted = "budget-exhausted"
	DetailConcurrentLimit = "concurrent-limit"
	// DetailGuaranteedShare: the free cards are kept for other projects' guaranteed share,
	// which only short tasks may borrow.
	DetailGuaranteedShare = "guaranteed-share"
	// DetailBooked refines ReasonNoFreeGPUs: the free cards are booked for another project's
	// reservation (see Booking).
	DetailBooked = "booked"
	// DetailServiceLimit: a service waits because its project's services hold the cards its
	// quota lets services hold (QuotaState.MaxServiceGPUs).
	DetailServiceLimit = "service-limit"
	// DetailNoQuota: the project has no quota on the specs the task accepts, and their pools
	// refuse such projects or let them hold no more cards (QuotaState.NoQuotaMaxGPUs).
	DetailNoQuota = "no-quota"
)

// Waiting explains one task that does not start now.
type Waiting struct {
	TaskID int64
	// Lane is the lane the task queues in (models.QueueShort, models.QueueLong or, for a
	// service, models.QueueService).
	Lane string
	// Position is 1-based among the waiting tasks of the lane, in queue order.
	Position int
	Reason   Reason
	// Spec is the spec asked for ("" = any), set for ReasonNoFreeGPUs and
	// ReasonNoSuchCapacity.
	Spec string
	// Ahead is the task holding the reservation, set for ReasonBehind.
	Ahead int64
	// Detail refines the reason with a stable code (DetailBudgetExhausted,
	// DetailConcurrentLimit); empty otherwise.
	Detail string
	// Head is true when the task holds its spec's reservation (see Plan.Reservations).
	Head bool
	// ETAP50 and ETAP90 are the estimated start times; zero means unknown. See Decide for
	// the method.
	ETAP50 time.Time
	ETAP90 time.Time
	// PlaceSpec and PlaceRegion are where the task is expected to start: its reservation's
	// place for a head, else the place where the ETA replay starts it first; PlaceWhy says
	// why there (WhyDataRegion, WhyOnly, WhyEarliest). All empty when unknown.
	PlaceSpec, PlaceRegion, PlaceWhy string
	// Quota, for a task waiting on its project's concurrent limit (DetailConcurrentLimit),
	// says which limit and by how much; nil otherwise.
	Quota *QuotaWait
}

// Why a task runs, or is expected to run, where it does.
const (
	// WhyDataRegion: in its data's region, where cards are free (or come free first, or as
	// early as anywhere else).
	WhyDataRegion = "data-region"
	// WhyOnly: the only place it accepts that could hold it.
	WhyOnly = "only"
	// WhyFirstFree: of the places it accepts, cards are free now here (the best fit).
	WhyFirstFree = "first-free"
	// WhyEarliest: of the places it accepts, it is expected to start here first.
	WhyEarliest = "earliest"
)

// String explains the wait in one English sentence; pages translate by Reason instead.
func (w Waiting) String() string {
	spec := w.Spec
	if spec == "" {
		spec = "any"
	}
	switch w.Reason {
	case ReasonNoFreeGPUs:
		if w.Detail == DetailBooked {
			return fmt.Sprintf("the free %s GPUs are booked by another project", spec)
		}
		return fmt.Sprintf("waiting for free %s GPUs", spec)
	case ReasonReservationWindow:
		return "starts when its project's booked window opens"
	case ReasonDataNotReady:
		return "waiting for its data to be ready"
	case ReasonOffPeakOnly:
		return "deferrable: waiting for the off-peak window or cards nobody waits for"
	case ReasonQuota:
		if q := w.Quota; q != nil {
			spec := q.Spec
			if spec == "" {
				spec = "all specs"
			}
			return fmt.Sprintf("waiting for quota %s of %s: %d of %d in use, needs %d more", spec, q.Project, q.InUse, q.Limit, q.Needs)
		}
		return "waiting for quota: " + w.Detail
	case ReasonBehind:
		return fmt.Sprintf("free cards are kept for task %d, ahead in the queue", w.Ahead)
	case ReasonNoSuchCapacity:
		return fmt.Sprintf("asks more %s GPUs than the pool can ever give", spec)
	case ReasonInvalid:
		return "asks for no GPU"
	case ReasonNoSuitablePlace:
		pools := "the " + w.Spec + " pools"
		if w.Spec == "" {
			pools = "the pools it may use"
		}
		switch w.Detail {
		case DetailNoInterconnect:
			return "larger than a node, and " + pools + " have no network between nodes"
		case DetailInterNodeBelow:
			return pools + " state less network between nodes than it asks"
		}
		return pools + " state less storage throughput than it asks"
	}
	return string(w.Reason)
}

// Reservation is where and when a blocked head will start if running tasks end as expected.
// Later tasks may use the reserved nodes only if they end (by their max runtime) before At or
// fit in Spare.
type Reservation struct {
	TaskID int64
	Spec   string
	Region string
	// At is the reserved start; zero when some needed card has no expected end.
	At    time.Time
	Nodes []ReservedNode
}

// ReservedNode is one node of a reservation.
type ReservedNode struct {
	NodeID int64
	// GPUs is how many of the node's cards the head takes at At.
	GPUs int
	// Spare is how many cards free at At the head leaves on the node, which tasks that run
	// past At may take; always 0 for a head taking whole nodes.
	Spare int
}
