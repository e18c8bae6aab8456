package cli

import "time"

// task is a task as the API shows it (GET /api/v1/tasks/{id}); the CLI reads these fields.
type task struct {
	ID          int64      `json:"id"`
	Project     string     `json:"project"`
	Name        string     `json:"name"`
	Owner       string     `json:"owner"`
	GPUs        int        `json:"gpus"`
	Spec        string     `json:"spec"`
	Queue       string     `json:"queue"`
	Priority    string     `json:"priority"`
	EstGPUHours float64    `json:"est_gpu_hours"`
	MaxRuntimeS int64      `json:"max_runtime_s"`
	Command     []string   `json:"command"`
	Image       string     `json:"image"`
	DataReady   bool       `json:"data_ready"`
	State       string     `json:"state"`
	Reason      string     `json:"reason"`
	SubmittedAt time.Time  `json:"submitted_at"`
	StartedAt   *time.Time `json:"started_at"`
	EndedAt     *time.Time `json:"ended_at"`
	ExitCode    *int       `json:"exit_code"`
	OutputUnits int64      `json:"output_units"`
	OutputUnit  string     `json:"output_unit"`
	Events      []event    `json:"events"`
}

// event is one transition of a task.
type event struct {
	At     time.Time `json:"at"`
	From   string    `json:"from"`
	To     string    `json:"to"`
	Reason string    `json:"reason"`
}

// ended reports whether the task is in a final state.
func (t task) ended() bool {
	switch t.State {
	case "succeeded", "failed", "cancelled", "timed-out", "reclaimed":
		return true
	}
	return false
}

// queue is GET /api/v1/queue.
type queue struct {
	Now      time.Time  `json:"now"`
	Tasks    []queued   `json:"tasks"`
	Capacity []capacity `json:"capacity"`
}

// queued is a waiting task with its place in the queue.
type queued struct {
	task
	Position   int        `json:"position"`
	Lane       string     `json:"lane"`
	ETAP50     *time.Time `json:"eta_p50"`
	ETAP90     *time.Time `json:"eta_p90"`
	ReasonText string     `json:"reason_text"`
}

// capacity is one spec's free capacity.
type capacity struct {
	Spec        string `json:"spec"`
	Total       int    `json:"total"`
	Held        int    `json:"held"`
	Free        int    `json:"free"`
	LargestFree int    `json:"largest_free"`
}

// gpu is one GPU of GET /api/v1/gpus.
type gpu struct {
	UUID           string  `json:"uuid"`
	Node           string  `json:"node"`
	Index          int     `json:"index"`
	Pool           string  `json:"pool"`
	Spec           string  `json:"spec"`
	MemoryTotalMiB int64   `json:"memory_total_mib"`
	MemoryUsedMiB  int64   `json:"memory_used_mib"`
	UtilPct        int     `json:"util_pct"`
	State          string  `json:"state"`
	TaskID         *int64  `json:"task_id"`
	Project        *string `json:"project"`
}
