package api

import "slices"

// TaskState is where a task stands, the value of Task.State. The store keeps its own copy of
// these codes (models may not import api); a test holds the two lists equal.
type TaskState string

// Task states, in the order a task goes through them.
const (
	// StateWaitingData: the task waits for its data to be ready before it queues.
	StateWaitingData TaskState = "waiting-data"
	StateQueued      TaskState = "queued"
	// StateStarting: the task holds its cards and its node is starting its process.
	StateStarting  TaskState = "starting"
	StateRunning   TaskState = "running"
	StateSucceeded TaskState = "succeeded"
	StateFailed    TaskState = "failed"
	StateCancelled TaskState = "cancelled"
	StateTimedOut  TaskState = "timed-out"
	// StateReclaimed: the task's cards were taken back for idleness (or by the release loop).
	StateReclaimed TaskState = "reclaimed"
)

// taskStates lists every TaskState in the order a task goes through them.
var taskStates = []TaskState{StateWaitingData, StateQueued, StateStarting, StateRunning,
	StateSucceeded, StateFailed, StateCancelled, StateTimedOut, StateReclaimed}

// TaskStates lists every task state, in the order a task goes through them.
func TaskStates() []TaskState { return slices.Clone(taskStates) }

// Ended reports whether s is a state a task never leaves.
func (s TaskState) Ended() bool {
	switch s {
	case StateWaitingData, StateQueued, StateStarting, StateRunning:
		return false
	}
	return true
}

// WaitReason says why a queued task waits, the value of QueueEntry.Reason: a stable code that
// pages and the API show. The scheduler keeps its own copy (it may not import api); a test
// holds the two lists equal.
type WaitReason string

// Wait reasons.
const (
	// ReasonStarting: the scheduler places the task now; the loop's next tick starts it.
	ReasonStarting WaitReason = "starting"
	// ReasonNew: the task was submitted after the scheduler's last look.
	ReasonNew WaitReason = "new"
	// ReasonNoFreeGPUs: not enough free cards of the spec now.
	ReasonNoFreeGPUs WaitReason = "no-free-gpus"
	// ReasonDataNotReady: the task's data is not ready yet.
	ReasonDataNotReady WaitReason = "data-not-ready"
	// ReasonOffPeakOnly: a deferrable task waits for the off-peak window.
	ReasonOffPeakOnly WaitReason = "off-peak-only"
	// ReasonQuota: the project is at its limit or out of budget, and may not overflow.
	ReasonQuota WaitReason = "quota"
	// ReasonBehind: cards that would fit are kept for a task ahead in the queue.
	ReasonBehind WaitReason = "behind"
	// ReasonNoSuchCapacity: the task asks more than the schedulable nodes could ever give.
	ReasonNoSuchCapacity WaitReason = "no-such-capacity"
	// ReasonInvalid: the task asks for fewer than one GPU.
	ReasonInvalid WaitReason = "invalid"
	// ReasonReservationWindow: the task starts when its project's booked window opens.
	ReasonReservationWindow WaitReason = "reservation-window"
	// ReasonNoSuitablePlace: every pool the task could run on lacks what it needs; the
	// queue entry's reason_detail names what: no-interconnect (the task is larger than a node
	// and the pool's nodes have no network between them), inter-node-below-minimum or
	// storage-below-minimum (the pool states less than min_inter_node_gbps or
	// min_storage_mbps, or states nothing).
	ReasonNoSuitablePlace WaitReason = "no-suitable-place"
)

// waitReasons lists every WaitReason.
var waitReasons = []WaitReason{ReasonStarting, ReasonNew, ReasonNoFreeGPUs, ReasonDataNotReady, ReasonOffPeakOnly,
	ReasonQuota, ReasonBehind, ReasonNoSuchCapacity, ReasonInvalid, ReasonReservationWindow, ReasonNoSuitablePlace}

// WaitReasons lists every wait reason.
func WaitReasons() []WaitReason { return slices.Clone(waitReasons) }

// GPUState is what the board and GPU.State say of a card. The store decides it and keeps its
// own copy of the codes (models may not import api); a test holds the two lists equal.
type GPUState string

// GPU states.
const (
	GPUFree GPUState = "free" // no task holds it
	GPUBusy GPUState = "busy" // held and in use
	GPUIdle GPUState = "idle" // held, utilization under the idle threshold
	// GPUStale: no reading for longer than the stale time; its readings are old.
	GPUStale GPUState = "stale"
)

// gpuStates lists every GPUState.
var gpuStates = []GPUState{GPUFree, GPUBusy, GPUIdle, GPUStale}

// GPUStates lists every GPU state.
func GPUStates() []GPUState { return slices.Clone(gpuStates) }
