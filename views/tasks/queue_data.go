package tasks

import (
	"time"

	"kashi/views"
)

// QueueData is everything the queue page shows. Handlers fill it; templates only read it.
type QueueData struct {
	Now time.Time
	// Lanes are the short lane, the long one and the service lane; all are always there.
	Lanes []QueueLane
	// Running are the tasks holding cards, longest-running first.
	Running []RunningTask
	// Capacity is the free capacity per spec, in spec order.
	Capacity []SpecCapacity
	Form     TaskForm
}

// QueueLane is one lane's waiting tasks in queue order.
type QueueLane struct {
	Name string // LaneShort, LaneLong or LaneService
	Rows []views.QueueRow
}

// RunningTask is a task that holds cards.
type RunningTask struct {
	TaskID    int64
	Name      string
	Project   string
	Owner     string
	GPUs      int
	Spec      string // asked spec; "" is any
	Node      string
	StartedAt time.Time
}

// SpecCapacity is one spec's cards: what is free now (net of bookings) and the largest block
// on one node, the free cards bookings keep for their projects, and the short lane's reserve
// (cards of nodes only short tasks take) with how many are in use.
type SpecCapacity struct {
	Spec             string
	Region           string
	Total            int
	Held             int
	Free             int
	Booked           int
	BookedFor        []string
	LargestFree      int
	ShortReserve     int
	ShortReserveHeld int
	// Pools are the pools of the spec in the region with what each states for work across
	// cards and nodes and for storage.
	Pools []views.PoolAttrs
}

// TaskForm is the submit form: what was typed, what is wrong with it, and its choices.
type TaskForm struct {
	Values TaskFormValues
	// Errors holds the problem of each input by its name (a TaskFormValues field's input
	// name); the key "" is a problem of the whole form.
	Errors map[string]views.FormError
	// Checked is true when the values were validated (inline validation); with no errors the
	// form says so.
	Checked bool
	// Created is the id of the task just submitted, for the success notice; 0 for none.
	// Queued is where it stood in the queue as it was submitted, nil when unknown.
	Created int64
	Queued  *QueuedTask
	// Closed is true for a viewer who may submit to no project: the form is not shown.
	Closed bool
	// TemplateName and TemplateVersion name the template of Values.Template, for the notice.
	TemplateName    string
	TemplateVersion int
	// TemplateDataLocations are the template's data locations as region=location lines,
	// which the task carries for the regions it accepts; "" for none.
	TemplateDataLocations string
	// Estimate is the dry run of a valid, checked form; nil when there is none.
	Estimate *TaskEstimate
	// Projects, Specs and Priorities (highest first) are the choices of the selects; Projects
	// are those the viewer may submit to.
	Projects   []string
	Specs      []string
	Priorities []string
	// Regions are the regions pools are in, the choices of the regions group.
	Regions []string
	// Access says what the chosen project may use of each of Specs: its quota, else the
	// pools' rule for projects without one; nil before a project is chosen.
	Access []views.SpecAccess
	// ShortMax and LongMax are the lanes' runtime limits, for the help text.
	ShortMax, LongMax time.Duration
	// PathChecks is true when the server checks paths (it has data roots); otherwise the data
	// check's help says it takes a URL only.
	PathChecks bool
	// Demo is true on the demo, whose simulated nodes run only kashi-sim commands: the
	// command's help says which.
	Demo bool
}

// TaskFormValues are the form's inputs as typed. Their input names are in the field tags'
// order: project, name, owner, gpus, specs, regions, queue, priority, est_gpu_hours, max_runtime_h,
// command, env, workdir, data_ready, data_check, deferrable, idempotency_key.
type TaskFormValues struct {
	Project string
	Name    string
	Owner   string
	GPUs    string
	// Specs and Regions are the ticked boxes of the specs and regions the task accepts
	// (several inputs of one name); none means any.
	Specs       []string
	Regions     []string
	Queue       string
	Priority    string
	EstGPUHours string
	MaxRuntimeH string
	Command     string // one argument per line
	Env         string // KEY=VALUE lines
	Workdir     string
	Image       string // a container image; empty runs on the host
	DataReady   bool
	DataCheck   string // an absolute path or an http(s) URL
	Deferrable  bool
	// IdempotencyKey is fresh for each new form, so a double submit stores one task.
	IdempotencyKey string
	// Template is the id of the template the form was filled from ("" for none): the task
	// records it and its version, and the template's env names need values.
	Template string
	// Model, filled in, makes the task an inference service with Replicas, MetricsPort,
	// MetricsPath, HealthPath and TTFTTargetMS (input names model, replicas, metrics_port,
	// metrics_path, health_path, ttft_target_ms).
	Model        string
	Replicas     string
	MetricsPort  string
	MetricsPath  string
	HealthPath   string
	TTFTTargetMS string
	// MaxAttempts is the most runs of the task, "" for its template's or the default;
	// RerunOnFailure reruns it also when it exits non-zero by itself.
	MaxAttempts    string
	RerunOnFailure bool
	// MinInterNodeGbps and MinStorageMBps are the task's minimums as typed ("" for none);
	// AllowNoInterconnect lets it run across nodes without a network between them.
	MinInterNodeGbps, MinStorageMBps string
	AllowNoInterconnect              bool
}

// Dry-run warnings, the values of TaskEstimate.Warnings.
const (
	WarnQuota    = "quota"
	WarnOverflow = "overflow"
	WarnBudget   = "budget"
)

// TaskEstimate is the dry run of the form's task: where it would stand in the queue if
// submitted now, what it would cost and the quota warnings.
type TaskEstimate struct {
	Now time.Time
	// Wait is the task's would-be queue row: Reason, ReasonSpec, Ahead, Detail and the ETAs.
	Wait views.QueueRow
	// Costs are one per spec it could run on.
	Costs []TaskCost
	// Warnings are WarnQuota, WarnOverflow or WarnBudget.
	Warnings []string
}

// QueuedTask is where a task just submitted stands: its lane and its queue row (Position 0
// when it starts at the next tick, Reason and the ETAs otherwise), as the queue stood when it
// was submitted (at Now).
type QueuedTask struct {
	Lane string
	Now  time.Time
	Wait views.QueueRow
}

// TaskCost is the form's task priced on one spec as its bill line would be.
type TaskCost struct {
	Spec         string
	AmountFen    int64
	MissingPrice bool
}
