package board

import (
	"time"

	"kashi/views"
)

// BoardData is everything the occupancy board shows. Handlers fill it; templates only read it.
type BoardData struct {
	Now time.Time
	// Filter is the current selection; empty fields mean all.
	Filter BoardFilter
	// Options lists the values the filter selects offer.
	Options BoardOptions
	Pools   []PoolSummary
	Nodes   []views.BoardNode
	// IdleAfter and SaturatedAfter are how long a held-idle or saturated card waits before it
	// stands out.
	IdleAfter      time.Duration
	SaturatedAfter time.Duration
	// ActivePct is the utilization at and above which a held card counts as active; under
	// it (and over the idle threshold) it is low (CompactState).
	ActivePct int
	// Bookings are the reservations holding cards now: from their lead time before the
	// window to its end.
	Bookings []views.BoardBooking
	// Counts are the shown cards by compact state (CardFacts.Compact), over every page.
	Counts map[string]int
	// Pages are the board's pages when its cards do not fit one (the handler's paging);
	// Nodes are then the nodes of page Filter.Page only.
	Pages []BoardPage
}

// BoardPage is one page of a board too large for one: the node groups (pools) it holds,
// by the pools of its first and last node, and its count of cards.
type BoardPage struct {
	Number      int
	First, Last string
	Cards       int
}

// BoardFilter selects what the board shows and how: all of it is kept in the URL.
type BoardFilter struct {
	Pool    string
	Spec    string
	Project string
	// Owner keeps the cards of tasks Owner submitted; State the cards in a compact state
	// (Compact* constants).
	Owner string
	State string
	// Sort is SortNode (pool, node: the default) or SortIdle (nodes with idle held cards
	// first, then those with free ones).
	Sort string
	// View is ViewCards or ViewGrid, the compact grid; the handler sets it when the URL
	// does not (ViewCards up to a page of cards, ViewGrid above).
	View string
	// Page is the page shown, from 1, of a board with Pages.
	Page int
}

// Board views and sorts.
const (
	ViewCards = "cards"
	ViewGrid  = "grid"
	SortNode  = "node"
	SortIdle  = "idle"
)

// BoardOptions are the choices of each filter.
type BoardOptions struct {
	Pools    []string
	Specs    []string
	Projects []string
	Owners   []string
}

// PoolSummary sums one pool's cards.
type PoolSummary struct {
	Name        string
	Spec        string
	Nodes       int
	Total       int
	Busy        int // held and not idle
	IdleHeld    int // held, utilization under the idle threshold
	Free        int // not held by any task
	Booked      int // of Free, marked as kept for a booking (BoardGPU.BookedBy)
	Stale       int // no recent reading, held or not
	MeanUtil    int // percent, over all cards of the pool
	MemUsedMiB  int64
	MemTotalMiB int64
}
