package views

import (
	"time"

	"kashi/api"
)

// BoardBooking is a reservation holding cards now: GPUs cards of Spec for Project from
// Starts to Ends, held from HoldFrom. InUse of them are the project's cards on the board in
// the window; HeldFree free cards of the spec are marked as held for it.
type BoardBooking struct {
	Project, Spec          string
	Region                 string // "": every region of Spec
	GPUs, InUse, HeldFree  int
	HoldFrom, Starts, Ends time.Time
	// Occurrence of Occurrences places a repeating reservation's window (1 of 1 when single).
	Occurrence, Occurrences int
}

// Covers reports whether the booking holds cards of node: of its spec, in its region if it
// names one.
func (b BoardBooking) Covers(n BoardNode) bool {
	return n.Spec == b.Spec && (b.Region == "" || n.Region == b.Region)
}

// Open reports whether the booking's window has begun at now.
func (b BoardBooking) Open(now time.Time) bool { return !now.Before(b.Starts) }

// BoardNode is one node as a row of its GPUs.
type BoardNode struct {
	ID       int64
	Hostname string
	Pool     string
	Spec     string
	// Region and Zone are the pool's; empty for a pool without one (own machines).
	Region, Zone string
	State        string // ready, draining, lost
	LastSeen     time.Time
	MeanUtil     int // percent over the node's cards
	MemUsedMiB   int64
	MemTotalMiB  int64
	GPUs         []BoardGPU
}

// BoardGPU is one card.
type BoardGPU struct {
	// ID names the card (GPUURL); UUID is shown to admins only, "" for others.
	ID             int64
	UUID           string
	Index          int
	MemoryUsedMiB  int64
	MemoryTotalMiB int64
	UtilPct        int
	TempC          int
	PowerW         int
	// Held is true while a task holds the card.
	Held    bool
	TaskID  int64
	Task    string
	Project string
	// Owner submitted the holding task; HeldFor is how long the task has held the card.
	Owner   string
	HeldFor time.Duration
	// IdleFor is how long utilization has stayed under the idle threshold (0 when busy).
	IdleFor time.Duration
	// SaturatedFor is how long memory or utilization has stayed at or above the mark.
	SaturatedFor time.Duration
	// State is the card's state (models.GPUStatus decides it); LongIdle and LongSaturated
	// make it stand out.
	State         api.GPUState
	LongIdle      bool
	LongSaturated bool
	// BookedBy is 1 + the index in BoardData.Bookings of the booking a free card is held
	// for; 0 for none.
	BookedBy int
	// UnmanagedMiB is memory held by processes of no task; UnmanagedWho says whose.
	UnmanagedMiB int64
	UnmanagedWho string
	// Strip is the card's last hour in 5-minute buckets, oldest first (Strip* levels).
	Strip [12]uint8
}
