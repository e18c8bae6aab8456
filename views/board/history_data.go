package board

import (
	"time"

	"kashi/views"
)

// HistoryPoint is one rollup bucket of a GPU or of a node's GPUs together: mean and peak
// utilization (percent), memory used (MiB), temperature (°C) and power (W). HasEnv is false
// for buckets rolled up before temperature and power were recorded.
type HistoryPoint struct {
	At               time.Time
	Util, UtilMax    float64
	Mem, MemMax      float64
	TempC, TempMax   float64
	PowerW, PowerMax float64
	HasEnv           bool
}

// HoldView is one task's hold of a card (or of a node's cards) within the range.
type HoldView struct {
	TaskID  int64
	Task    string
	Project string
	Owner   string
	// GPUs is how many of the page's cards the task held.
	GPUs  int
	From  time.Time
	Until *time.Time // nil: still held
}

// HistoryData is what the GPU and node pages share: the range, the rollups in it and the
// tasks that held the cards.
type HistoryData struct {
	Now   time.Time
	Range string
	From  time.Time
	// Step is the rollups' resolution: a gap longer than it breaks the lines.
	Step   time.Duration
	Points []HistoryPoint
	// MemTotalMiB is the top of the memory chart.
	MemTotalMiB int64
	Holds       []HoldView
	// ActivePct is the active threshold, for the cards' compact states.
	ActivePct int
}

// GPUPageData is the page of one GPU.
type GPUPageData struct {
	HistoryData
	ID int64
	// UUID is shown to admins only; "" for others.
	UUID     string
	Index    int
	Name     string
	Spec     string
	NodeID   int64
	Node     string
	Pool     string
	Current  views.BoardGPU
	LastSeen *time.Time
}

// NodePageData is the page of one node: its GPUs now, then their history together.
type NodePageData struct {
	HistoryData
	ID       int64
	Hostname string
	Pool     string
	State    string
	LastSeen time.Time
	GPUs     []views.BoardGPU
	// Admin is true for an admin, who may issue a join token for the node.
	Admin bool
}
