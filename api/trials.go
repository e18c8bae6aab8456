package api

import "time"

// TrialRequest is the body of POST /api/v1/trials: a task tried at small sizes on one or
// several specs for a bounded time before its full run. The task is FromTask's (its
// command, environment, image and data, submitted again) or Task, whose spec, cards and
// runtime the trial sets.
type TrialRequest struct {
	FromTask int64        `json:"from_task,omitempty"`
	Task     *TaskRequest `json:"task,omitempty"`
	Specs    []string     `json:"specs"`
	// Sizes are the cards of each run, e.g. [1, 2].
	Sizes []int `json:"sizes"`
	// BoundS is how long each run may take, in seconds.
	BoundS int64 `json:"bound_s"`
	// WorkUnits is the full run's output in the unit the runs report; FullGPUs its cards.
	WorkUnits int64 `json:"work_units,omitempty"`
	FullGPUs  int   `json:"full_gpus,omitempty"`
}

// TrialFullRequest is the body of POST /api/v1/trials/{id}/full; empty takes the trial's
// proposal.
type TrialFullRequest struct {
	Spec string `json:"spec,omitempty"`
	GPUs int    `json:"gpus,omitempty"`
}

// TrialRun is one run of a trial with what it measured. Money is in fen.
type TrialRun struct {
	TaskID       int64     `json:"task_id"`
	Spec         string    `json:"spec"`
	GPUs         int       `json:"gpus"`
	State        TaskState `json:"state"`
	RuntimeS     int64     `json:"runtime_s"`
	OutputUnits  int64     `json:"output_units"`
	OutputUnit   string    `json:"output_unit,omitempty"`
	UnitsPerHour int64     `json:"units_per_hour"`
	// EfficiencyPct is the output per card against the spec's smallest size (0 for it).
	EfficiencyPct int    `json:"efficiency_pct,omitempty"`
	RateFen       int64  `json:"rate_fen"`
	CostFen       int64  `json:"cost_fen"`
	CostPerMFen   *int64 `json:"cost_per_million_fen,omitempty"`
	PeakMemMiB    int64  `json:"peak_mem_mib"`
	MeanUtilPct   int    `json:"mean_util_pct"`
	// Busy is whether the cards' mean utilization was at least 70 %: the data reading kept
	// them busy; absent without readings.
	Busy *bool `json:"busy,omitempty"`
}

// TrialProposal is the full run a trial proposes.
type TrialProposal struct {
	Spec         string `json:"spec"`
	GPUs         int    `json:"gpus"`
	UnitsPerHour int64  `json:"units_per_hour"`
	Projected    bool   `json:"projected"`
	Scales       bool   `json:"scales"`
	CostPerMFen  *int64 `json:"cost_per_million_fen,omitempty"`
	// CardS and CostFen are the full run's card-seconds and cost for work_units; 0 unknown.
	CardS   int64 `json:"card_s"`
	CostFen int64 `json:"cost_fen"`
}

// Trial is GET /api/v1/trials/{id}.
type Trial struct {
	ID        int64     `json:"id"`
	Project   string    `json:"project"`
	Owner     string    `json:"owner"`
	Name      string    `json:"name"`
	Specs     []string  `json:"specs"`
	Sizes     []int     `json:"sizes"`
	BoundS    int64     `json:"bound_s"`
	WorkUnits int64     `json:"work_units"`
	FullGPUs  int       `json:"full_gpus"`
	CreatedAt time.Time `json:"created_at"`
	// Done is set once every run has ended; Proposal comes with it.
	Done     bool           `json:"done"`
	Runs     []TrialRun     `json:"runs"`
	Proposal *TrialProposal `json:"proposal,omitempty"`
	// FullTaskID is the full run submitted from the trial.
	FullTaskID *int64 `json:"full_task_id,omitempty"`
}

// TrialList is GET /api/v1/trials: the latest trials, newest first.
type TrialList struct {
	Trials []Trial `json:"trials"`
}
