package api

import (
	"encoding/json"
	"time"
)

// The user API's bodies that the server's handlers write and the CLI reads. Fields keep the
// order the server has always written them in.

// DataCheck is what a task waits for before it queues: a path under the server's data roots
// or a URL, and where the data is.
type DataCheck struct {
	Path string `json:"path,omitempty"`
	URL  string `json:"url,omitempty"`
	// Region is where the data is: the scheduler prefers that region's cards.
	Region string `json:"region,omitempty"`
}

// TaskRequest is the body of POST /api/v1/tasks. Every field may be left out; a client leaves
// out its zero values.
type TaskRequest struct {
	Project     string            `json:"project,omitempty"`
	Name        string            `json:"name,omitempty"`
	Owner       string            `json:"owner,omitempty"`
	GPUs        int               `json:"gpus,omitempty"`
	Spec        string            `json:"spec,omitempty"`
	Specs       []string          `json:"specs,omitempty"`
	Regions     []string          `json:"regions,omitempty"`
	Queue       string            `json:"queue,omitempty"`
	Priority    string            `json:"priority,omitempty"`
	EstGPUHours float64           `json:"est_gpu_hours,omitempty"`
	MaxRuntimeS int64             `json:"max_runtime_s,omitempty"`
	Command     []string          `json:"command,omitempty"`
	Env         map[string]string `json:"env,omitempty"`
	// SecretEnv names the variables of Env stored encrypted at rest.
	SecretEnv []string `json:"secret_env,omitempty"`
	Workdir   string   `json:"workdir,omitempty"`
	Image     string   `json:"image,omitempty"`
	// DataReady, when true, queues the task at once; false waits for POST .../ready or its
	// data check. Absent: ready unless the task names a data check (data_check, or a path or
	// URL in data_locations), as the CLI, the form and templates do.
	DataReady *bool      `json:"data_ready,omitempty"`
	DataCheck *DataCheck `json:"data_check,omitempty"`
	// DataLocations is where the data is in each region: region → path or URI.
	DataLocations map[string]string `json:"data_locations,omitempty"`
	Deferrable    bool              `json:"deferrable,omitempty"`
	// Template is the template whose fields the request starts from; 0 for none.
	Template int64 `json:"template,omitempty"`
	// Kind "service" submits an inference service: Model, Replicas, MetricsPort, MetricsPath
	// and HealthPath describe it.
	Kind        string `json:"kind,omitempty"`
	Model       string `json:"model,omitempty"`
	Replicas    int    `json:"replicas,omitempty"`
	MetricsPort int    `json:"metrics_port,omitempty"`
	MetricsPath string `json:"metrics_path,omitempty"`
	HealthPath  string `json:"health_path,omitempty"`
	// TTFTTargetMS is a service's p95 time-to-first-token target; 0 for none.
	TTFTTargetMS int `json:"ttft_target_ms,omitempty"`
	// MaxAttempts is the most times the task runs (1–10; absent: its template's, else 2): a
	// task whose node is lost is queued again at the head of its lane and resumes from its
	// last checkpoint (KASHI_RESUME_FROM) until it has had them. RerunOnFailure reruns it
	// also when it exits non-zero by itself (absent: its template's, else false).
	MaxAttempts    int   `json:"max_attempts,omitempty"`
	RerunOnFailure *bool `json:"rerun_on_failure,omitempty"`
	// MinInterNodeGbps is the least network between nodes (Gb/s, 0–204,800) and
	// MinStorageMBps the least storage read throughput (MB/s, 0–1,000,000, the better of a
	// node's local disks and the shared storage) a pool must state for the task to run
	// there (absent: its template's, else none). AllowNoInterconnect lets a task larger than
	// a node run on a pool whose nodes have no network between them (absent: its
	// template's, else false: such a task waits with reason no-suitable-place).
	MinInterNodeGbps    int   `json:"min_inter_node_gbps,omitempty"`
	MinStorageMBps      int   `json:"min_storage_mbps,omitempty"`
	AllowNoInterconnect *bool `json:"allow_no_interconnect,omitempty"`
}

// TemplateBody is what a task template fixes of the tasks submitted from it, as the template
// API takes and shows it (beside the template's name and description). EnvNames are the
// variables a submit must give values for; a template never holds their values. The store
// keeps the same fields in its own form; a test holds the two equal.
type TemplateBody struct {
	GPUs        int        `json:"gpus"`
	Spec        string     `json:"spec"`
	Specs       []string   `json:"specs,omitempty"`
	Regions     []string   `json:"regions,omitempty"`
	Queue       string     `json:"queue"`
	Priority    string     `json:"priority"`
	EstGPUHours float64    `json:"est_gpu_hours"`
	MaxRuntimeS int64      `json:"max_runtime_s"`
	Command     []string   `json:"command"`
	EnvNames    []string   `json:"env_names"`
	Workdir     string     `json:"workdir"`
	Image       string     `json:"image"`
	DataCheck   *DataCheck `json:"data_check,omitempty"`
	// DataLocations is where the data is in each region (region → path or URI).
	DataLocations map[string]string `json:"data_locations,omitempty"`
	Deferrable    bool              `json:"deferrable"`
	// MaxAttempts and RerunOnFailure are its tasks' (see TaskRequest); absent for the
	// defaults, 2 attempts and no rerun on the task's own failure.
	MaxAttempts    int  `json:"max_attempts,omitempty"`
	RerunOnFailure bool `json:"rerun_on_failure,omitempty"`
	// MinInterNodeGbps, MinStorageMBps and AllowNoInterconnect are its tasks' (see
	// TaskRequest); absent for none.
	MinInterNodeGbps    int  `json:"min_inter_node_gbps,omitempty"`
	MinStorageMBps      int  `json:"min_storage_mbps,omitempty"`
	AllowNoInterconnect bool `json:"allow_no_interconnect,omitempty"`
	// Stages make it a pipeline template: submitting it (POST /api/v1/pipelines with
	// "template") submits a pipeline of these stages, and the fields above stay empty; a
	// stage's task without queue or priority takes the long lane and normal priority.
	Stages []TemplateStage `json:"stages,omitempty"`
}

// TemplateStage is one stage of a pipeline template: as a StageRequest, with its task's
// fields as a template body of its own.
type TemplateStage struct {
	Name       string       `json:"name"`
	After      []string     `json:"after,omitempty"`
	AfterEnded []string     `json:"after_ended,omitempty"`
	Output     string       `json:"output,omitempty"`
	Task       TemplateBody `json:"task"`
}

// TemplateRollback is the body of POST /api/v1/templates/{id}/rollback: the earlier version
// of the template to make current again, as a new version equal to it.
type TemplateRollback struct {
	Version int `json:"version"`
}

// Task is a task as the API shows it: GET /api/v1/tasks, the answer of a submit, a cancel and
// the other task actions.
type Task struct {
	ID      int64  `json:"id"`
	Project string `json:"project"`
	Name    string `json:"name"`
	Owner   string `json:"owner"`
	GPUs    int    `json:"gpus"`
	Spec    string `json:"spec"`
	// Specs and Regions are the specs and regions the task accepts, when it names several.
	Specs       []string `json:"specs,omitempty"`
	Regions     []string `json:"regions,omitempty"`
	Queue       string   `json:"queue"`
	Priority    string   `json:"priority"`
	EstGPUHours float64  `json:"est_gpu_hours"`
	MaxRuntimeS int64    `json:"max_runtime_s"`
	Command     []string `json:"command"`
	// EnvNames are the names of the task's environment; values are never shown after submit.
	EnvNames  []string   `json:"env_names"`
	Workdir   string     `json:"workdir"`
	Image     string     `json:"image"`
	DataReady bool       `json:"data_ready"`
	DataCheck *DataCheck `json:"data_check"`
	// DataCheckedAt is when the task's data check last answered (found the data or not)
	// while the task waited for it; null before its first answer.
	DataCheckedAt *time.Time `json:"data_checked_at"`
	// DataCheckSilentS is, while the task waits on a data check, how many seconds the check
	// has gone without an answer (since its last answer, or its submit), once that passes
	// five rounds of checks (five minutes); absent otherwise.
	DataCheckSilentS int64 `json:"data_check_silent_s,omitempty"`
	// DataLocations is where the data is in each region; the node is told its region's.
	DataLocations map[string]string `json:"data_locations,omitempty"`
	Deferrable    bool              `json:"deferrable"`
	State         TaskState         `json:"state"`
	// Reason is why the task took its state (the sentence the store recorded with its last
	// change of state), in the request's language; ReasonCodes says the same as catalog codes
	// with typed arguments, for scripts (absent for a sentence the server does not know).
	Reason      string     `json:"reason"`
	ReasonCodes []Phrase   `json:"reason_codes,omitempty"`
	SubmittedAt time.Time  `json:"submitted_at"`
	StartedAt   *time.Time `json:"started_at"`
	EndedAt     *time.Time `json:"ended_at"`
	ExitCode    *int       `json:"exit_code"`
	// Nodes are the host names of the nodes its current attempt was placed on, in rank
	// order (GET /api/v1/tasks and /api/v1/tasks/{id}; empty before it is placed).
	Nodes       []string `json:"nodes,omitempty"`
	OutputUnits int64    `json:"output_units"`
	OutputUnit  string   `json:"output_unit"`
	// LastCheckpointAt is the task's last reported checkpoint, and LastCheckpoint where it
	// wrote it, when its KASHI_CHECKPOINT line said.
	LastCheckpointAt *time.Time `json:"last_checkpoint_at"`
	LastCheckpoint   string     `json:"last_checkpoint,omitempty"`
	// Attempt is the task's run that holds or will hold its cards (1 for the first), of at
	// most MaxAttempts; RerunOnFailure reruns it also when it exits non-zero by itself.
	Attempt        int  `json:"attempt"`
	MaxAttempts    int  `json:"max_attempts"`
	RerunOnFailure bool `json:"rerun_on_failure"`
	// MinInterNodeGbps, MinStorageMBps and AllowNoInterconnect are what the task asks of
	// the pools it runs on (see TaskRequest); 0 and false for nothing.
	MinInterNodeGbps    int  `json:"min_inter_node_gbps"`
	MinStorageMBps      int  `json:"min_storage_mbps"`
	AllowNoInterconnect bool `json:"allow_no_interconnect"`
	// TemplateID is the template the task was submitted from, at TemplateVersion.
	TemplateID      *int64 `json:"template_id"`
	TemplateVersion int    `json:"template_version"`
	// TrialID is the trial the task is a run of (GET /api/v1/trials/{id}); absent for others.
	TrialID *int64 `json:"trial_id,omitempty"`
	// Kind is "batch" or "service"; a service's replica also shows its model, service (the
	// id of its first replica), replicas and metrics endpoint.
	Kind         string `json:"kind"`
	Model        string `json:"model,omitempty"`
	ServiceID    *int64 `json:"service_id,omitempty"`
	Replicas     int    `json:"replicas,omitempty"`
	MetricsPort  int    `json:"metrics_port,omitempty"`
	MetricsPath  string `json:"metrics_path,omitempty"`
	HealthPath   string `json:"health_path,omitempty"`
	TTFTTargetMS int    `json:"ttft_target_ms,omitempty"`
}

// HeaderLogEndOffset, on the answer of GET /api/v1/tasks/{id}/log (the end of the task's log
// as plain text), is the byte offset of the log file just past the text.
const HeaderLogEndOffset = "X-Log-End-Offset"

// TaskEvent is one transition in a task's event log; its Reason and ReasonCodes as a task's.
type TaskEvent struct {
	At          time.Time `json:"at"`
	From        string    `json:"from"`
	To          string    `json:"to"`
	Reason      string    `json:"reason"`
	ReasonCodes []Phrase  `json:"reason_codes,omitempty"`
}

// Phrase is one part of a sentence the server made, as a code and its arguments: the codes are
// stable (the catalogs write code "idle_for" as "cards idle for %s"), the sentence beside them
// is in words. Parts are joined with "; ".
type Phrase struct {
	Code string      `json:"code"`
	Args []PhraseArg `json:"args,omitempty"`
}

// PhraseArg is one argument of a Phrase: Kind "n" is a count (N), "d" a duration in seconds
// (N), "p" a whole percentage (N), "s" a name or other text (S).
type PhraseArg struct {
	Kind string `json:"kind"`
	N    int64  `json:"n,omitempty"`
	S    string `json:"s,omitempty"`
}

// TaskDetail is GET /api/v1/tasks/{id}: the task with its event log and its attempts, the
// first first.
type TaskDetail struct {
	Task
	Events   []TaskEvent   `json:"events"`
	Attempts []TaskAttempt `json:"attempts"`
	// Advice is what the task's next run should ask for, from what this run measured, as the
	// rightsize package writes it (the Advice schema); absent while it runs or without
	// enough readings.
	Advice json.RawMessage `json:"advice,omitempty"`
}

// TaskAttempt is one run of a task: an earlier one that ended in a rerun, or its current one
// (Current; EndedAt null while it runs, StartedAt null before it starts). Nodes are the
// hostnames it ran on; Ending is how it ended (lost, failed, or as a task's ending) and
// Reason why, with its codes as a task's; Checkpoint and CheckpointAt are the last checkpoint
// by its end (a rerun resumes from it); LostS the card-seconds of its work lost to its rerun
// (billed as the rerun class).
type TaskAttempt struct {
	Attempt      int        `json:"attempt"`
	Current      bool       `json:"current"`
	Nodes        []string   `json:"nodes"`
	StartedAt    *time.Time `json:"started_at"`
	EndedAt      *time.Time `json:"ended_at"`
	Ending       string     `json:"ending,omitempty"`
	Reason       string     `json:"reason,omitempty"`
	ReasonCodes  []Phrase   `json:"reason_codes,omitempty"`
	CheckpointAt *time.Time `json:"checkpoint_at"`
	Checkpoint   string     `json:"checkpoint,omitempty"`
	LostS        int64      `json:"lost_s"`
}

// Queue is GET /api/v1/queue.
type Queue struct {
	Now time.Time `json:"now"`
	// Tasks are the waiting tasks lane by lane (short first), in queue order.
	Tasks    []QueueEntry `json:"tasks"`
	Capacity []Capacity   `json:"capacity"`
}

// QueueEntry is a waiting task plus its place in the queue. Its Reason, a wait reason code,
// replaces the task's stored reason sentence: ReasonDetail refines it with a stable code
// (concurrent-limit, booked, data-check-silent…) and ReasonText says it in the request's
// language, as the queue page does.
type QueueEntry struct {
	Task
	Position int    `json:"position"`
	Lane     string `json:"lane"`
	// ETAP50 and ETAP90 are the estimated starts; null when unknown.
	ETAP50       *time.Time `json:"eta_p50"`
	ETAP90       *time.Time `json:"eta_p90"`
	Reason       WaitReason `json:"reason"`
	ReasonText   string     `json:"reason_text"`
	ReasonDetail string     `json:"reason_detail,omitempty"`
	Ahead        int64      `json:"ahead,omitempty"`
	// PlaceSpec and PlaceRegion are where it starts or is expected to; PlaceWhy why there
	// (data-region, only, first-free, earliest). Absent when unknown.
	PlaceSpec   string `json:"place_spec,omitempty"`
	PlaceRegion string `json:"place_region,omitempty"`
	PlaceWhy    string `json:"place_why,omitempty"`
	// Quota says which limit and by how much, for a task waiting on its project's concurrent
	// limit (reason quota, reason_detail concurrent-limit); absent otherwise.
	Quota *QuotaWait `json:"quota,omitempty"`
}

// QuotaWait is the concurrent limit a task waits on: of Spec ("" for every spec together),
// Limit cards, InUse of them held by the project now; the task needs Needs more than the
// limit leaves.
type QuotaWait struct {
	Spec  string `json:"spec"`
	Limit int    `json:"limit"`
	InUse int    `json:"in_use"`
	Needs int    `json:"needs"`
}

// Capacity is one spec's free capacity in a region.
type Capacity struct {
	Spec   string `json:"spec"`
	Region string `json:"region"`
	Total  int    `json:"total"`
	Held   int    `json:"held"`
	// Free is net of bookings: the cards a task of a project without a booking could take.
	Free int `json:"free"`
	// Booked counts the unheld cards bookings keep for their own projects, BookedFor.
	Booked      int      `json:"booked"`
	BookedFor   []string `json:"booked_for"`
	LargestFree int      `json:"largest_free"`
	// ShortReserve counts the cards kept for the short lane; ShortReserveHeld those in use.
	ShortReserve     int `json:"short_reserve"`
	ShortReserveHeld int `json:"short_reserve_held"`
	// Pools are the pools of the spec in the region, with what each states for work across
	// cards and nodes and for storage.
	Pools []PoolAttributes `json:"pools,omitempty"`
}

// PoolAttributes is what a pool states for work across cards and nodes and for storage, as
// its admin (or its cloud flavor) set it: the link between a node's cards (nvlink, pcie;
// absent: not stated) and its bandwidth per card in GB/s, the network between nodes (none,
// roce, infiniband, ethernet; absent: not stated) as ports × Gb/s each (InterNodeGbps their
// product, what a task's min_inter_node_gbps is held against), and the local disks' and the
// shared storage's read throughput in MB/s (the better is held against min_storage_mbps).
// Zero and absent mean not stated.
type PoolAttributes struct {
	Pool              string `json:"pool"`
	IntraNodeLink     string `json:"intra_node_link,omitempty"`
	IntraNodeGBytesS  int    `json:"intra_node_gbytes_s,omitempty"`
	InterNodeLink     string `json:"inter_node_link,omitempty"`
	InterNodePorts    int    `json:"inter_node_ports,omitempty"`
	InterNodePortGbps int    `json:"inter_node_port_gbps,omitempty"`
	InterNodeGbps     int    `json:"inter_node_gbps,omitempty"`
	LocalStorageMBps  int    `json:"local_storage_mbps,omitempty"`
	SharedStorageMBps int    `json:"shared_storage_mbps,omitempty"`
}

// GPU is one GPU of GET /api/v1/gpus. ID names it (GET /gpus/{id} is its page); UUID, what
// the card itself says and what a node registers, is shown to admins only, "" for others.
type GPU struct {
	ID             int64      `json:"id"`
	UUID           string     `json:"uuid,omitempty"`
	Node           string     `json:"node"`
	Index          int        `json:"index"`
	Pool           string     `json:"pool"`
	Spec           string     `json:"spec"`
	MemoryTotalMiB int64      `json:"memory_total_mib"`
	MemoryUsedMiB  int64      `json:"memory_used_mib"`
	UtilPct        int        `json:"util_pct"`
	State          GPUState   `json:"state"`
	TaskID         *int64     `json:"task_id"`
	Project        *string    `json:"project"`
	IdleSince      *time.Time `json:"idle_since"`
	UpdatedAt      *time.Time `json:"updated_at"`
	// UnmanagedMiB is memory held by processes of no task, UnmanagedWho whose.
	UnmanagedMiB int64  `json:"unmanaged_mib,omitempty"`
	UnmanagedWho string `json:"unmanaged_who,omitempty"`
}

// HeaderNow is the header of GET /api/v1/tasks and /api/v1/tasks/{id} that holds the
// server's clock (RFC 3339), which ages and elapsed times are reckoned against: a demo's clock
// runs faster than the wall's, and a laptop's may be off.
const HeaderNow = "Kashi-Now"

// Me is the caller as GET /api/v1/me shows them.
type Me struct {
	Name     string `json:"name"`
	Role     string `json:"role"`
	ReadOnly bool   `json:"read_only"`
}
