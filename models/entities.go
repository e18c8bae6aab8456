package models

import (
	"strings"
	"time"
)

// Pool is a group of machines of one GPU spec from one provider (an instance group).
type Pool struct {
	ID          int64
	Name        string
	Spec        string
	Provider    string
	GPUsPerNode int `gorm:"column:gpus_per_node"`
	// Region and Zone are those of the pool's configuration (PoolConfig), kept here by
	// SavePoolConfig so that the board and placement read them without decoding it.
	Region, Zone string
	CreatedAt    time.Time
}

// Node states.
const (
	NodeReady    = "ready"
	NodeDraining = "draining"
	NodeLost     = "lost"
)

// Node is one machine with its GPUs; it runs `kashi agent`.
type Node struct {
	ID        int64
	PoolID    int64
	Hostname  string
	MachineID string
	// TokenHash is the SHA-256 of the node's bearer token, hex-encoded; the token itself is
	// never stored.
	TokenHash    string `json:"-"`
	State        string
	RegisteredAt time.Time
	LastSeenAt   time.Time
}

// GPU is one card with its latest reading. The board reads these rows, never raw samples.
type GPU struct {
	ID             int64
	NodeID         int64
	UUID           string `gorm:"column:uuid"`
	Index          int    `gorm:"column:gpu_index"`
	Name           string
	Spec           string
	MemoryTotalMiB int64 `gorm:"column:memory_total_mib"`
	MemoryUsedMiB  int64 `gorm:"column:memory_used_mib"`
	UtilPct        int
	TempC          int
	PowerW         int
	// SampledAt is the time of the latest reading; nil before the first.
	SampledAt *time.Time
	// IdleSince is when utilization last fell under the idle threshold; nil while busy.
	IdleSince *time.Time
	// SaturatedSince is when memory or utilization last reached the saturation mark.
	SaturatedSince *time.Time
	// UnmanagedMiB is the memory held, at the latest reading, by processes of no task;
	// UnmanagedWho names them, UnmanagedSince is when that use began.
	UnmanagedMiB   int64 `gorm:"column:unmanaged_mib"`
	UnmanagedWho   string
	UnmanagedSince *time.Time
	// UnmanagedReadAt is the time of the last reading walked for unmanaged use; older ones,
	// resent from a spool, change nothing.
	UnmanagedReadAt *time.Time
	// ListedAt is the time of the node's latest registration, which listed the GPU; nil when
	// its node registered since without it (a card moved to another machine): the GPU is let
	// go, and another node may take it.
	ListedAt *time.Time
}

// GPUSample is one raw reading, kept for the retention window. TS is Unix seconds (UTC) so
// that bucketing is plain integer arithmetic on SQLite and Postgres alike.
type GPUSample struct {
	GPUID         int64 `gorm:"column:gpu_id;primaryKey;autoIncrement:false"`
	TS            int64 `gorm:"primaryKey;autoIncrement:false"`
	MemoryUsedMiB int64 `gorm:"column:memory_used_mib"`
	UtilPct       int
	TempC         int
	PowerW        int
}

// Rollup resolutions in seconds.
const (
	Rollup5m   = 300
	RollupHour = 3600
)

// GPURollup summarises the samples of one GPU in one bucket of Resolution seconds starting at
// Bucket (Unix seconds). Counts by class use the thresholds in force when it was rolled up,
// which IdlePct and ActivePct record (0: rolled up before they were recorded, with the
// defaults 10 and 40).
type GPURollup struct {
	GPUID      int64 `gorm:"column:gpu_id;primaryKey;autoIncrement:false"`
	Resolution int   `gorm:"primaryKey;autoIncrement:false"`
	Bucket     int64 `gorm:"primaryKey;autoIncrement:false"`
	N          int64
	UtilSum    int64
	UtilMax    int
	MemSum     int64
	MemMax     int64
	NIdle      int64
	NActive    int64
	IdlePct    int
	ActivePct  int
	// TempSum and PowerSum sum the readings (divide by N), TempMax and PowerMax the largest;
	// 0 in buckets rolled up before migration 14.
	TempSum  int64
	TempMax  int
	PowerSum int64
	PowerMax int
}

// Project is a team or research group that owns tasks and pays bills.
type Project struct {
	ID   int64
	Name string
	// Tags group the project's bills, comma-separated (see SetProjectTags).
	Tags      string
	CreatedAt time.Time
	// Reclaim is the project's own idle-reclaim settings over its pools' (SetReclaimOverride).
	Reclaim ReclaimOverride `gorm:"embedded;embeddedPrefix:reclaim_"`
	// ArchivedAt is when the project was archived: it takes no new tasks or requests; nil
	// while in use (SetProjectArchived).
	ArchivedAt *time.Time
}

// TagList returns the project's tags.
func (p Project) TagList() []string {
	if p.Tags == "" {
		return nil
	}
	return strings.Split(p.Tags, ",")
}

// Task states: api.TaskStates() is their wire form (models may not import api), and a test
// in the main package holds the two lists equal.
const (
	TaskWaitingData = "waiting-data"
	TaskQueued      = "queued"
	TaskStarting    = "starting"
	TaskRunning     = "running"
	TaskSucceeded   = "succeeded"
	TaskFailed      = "failed"
	TaskCancelled   = "cancelled"
	TaskTimedOut    = "timed-out"
	TaskReclaimed   = "reclaimed"
)

// Queue classes (lanes): the short lane is the fast lane for tasks whose max runtime is within
// TaskLimits.ShortMaxRuntime.
const (
	QueueShort = "short"
	QueueLong  = "long"
	// QueueService is the lane the queue shows services in; a service is stored in the long
	// lane, whose placement rules it follows (see the scheduler's service lane).
	QueueService = "service"
)

// Task kinds: a batch task runs to its end; a service (an inference server) runs until it is
// stopped. Tasks stored before kinds existed have an empty kind: batch.
const (
	TaskKindBatch   = "batch"
	TaskKindService = "service"
)

// Lanes are the queue classes in the order they are served.
var Lanes = []string{QueueShort, QueueLong}

// Priorities within a lane, highest first.
const (
	PriorityUrgent = "urgent"
	PriorityHigh   = "high"
	PriorityNormal = "normal"
	PriorityLow    = "low"
)

// Priorities are the priorities highest first; an unknown one counts as PriorityNormal.
var Priorities = []string{PriorityUrgent, PriorityHigh, PriorityNormal, PriorityLow}

// Task is a unit of work asking for GPUs of a spec.
type Task struct {
	ID        int64
	ProjectID int64
	Name      string
	Owner     string
	GPUs      int `gorm:"column:gpus"`
	// Spec is the wanted GPU spec; empty means any.
	Spec string
	// Specs and Regions are JSON lists of the specs and regions the task accepts (any of
	// them); empty text for none: Spec alone, and any region.
	Specs       string
	Regions     string
	Queue       string
	Priority    string
	EstGPUHours float64 `gorm:"column:est_gpu_hours"`
	MaxRuntimeS int64
	// Command is the argv list, JSON-encoded.
	Command string
	// Env is the environment, a JSON object.
	Env     string
	Workdir string
	// Image is the container image the task runs in; empty for a host process.
	Image string
	// DataReady is true once the task's data is ready; only ready tasks take cards.
	DataReady bool
	// DataCheck is the declared readiness check, JSON ({"path": …} or {"url": …}); empty if none.
	DataCheck string
	// DataCheckedAt is when the task's data check last answered (found the data or not) while
	// the task waited for it; nil before its first answer (DataCheckSilence).
	DataCheckedAt *time.Time
	// DataLocations is where the task's data is in each region, a JSON object of region →
	// path or URI; empty text for none (see DataLocation).
	DataLocations  string
	Deferrable     bool
	State          string
	Reason         string
	IdempotencyKey *string
	// IdempotencyScope is who sent the key; IdempotencyHash is the hex SHA-256 of the request.
	IdempotencyScope string `json:"-"`
	IdempotencyHash  string `json:"-"`
	SubmittedAt      time.Time
	StartedAt        *time.Time
	EndedAt          *time.Time
	ExitCode         *int
	OutputUnits      int64
	// OutputUnit names what OutputUnits count (samples, tokens, images); empty if unnamed.
	OutputUnit string
	// LastCheckpointAt is when the task last reported a checkpoint, and LastCheckpoint where
	// it wrote it (a path or URI the task named; empty when it named none).
	LastCheckpointAt *time.Time
	LastCheckpoint   string
	// Attempt is the task's run that holds or will hold its cards: 1 for the first, one more
	// for each rerun. MaxAttempts is the most runs it may have (1 never reruns it), and
	// RerunOnFailure reruns it also when it exits non-zero by itself (see rerun).
	Attempt        int
	MaxAttempts    int
	RerunOnFailure bool
	// MinInterNodeGbps and MinStorageMBps are the least network between nodes (Gb/s) and
	// storage read throughput (MB/s) a pool must state for the task to run there; 0 asks
	// none. AllowNoInterconnect lets a task larger than a node run on a pool whose nodes
	// have no network between them (see scheduler.Pending).
	MinInterNodeGbps    int
	MinStorageMBps      int `gorm:"column:min_storage_mbps"`
	AllowNoInterconnect bool
	// NodeID is where the task runs; nil until placed.
	NodeID *int64
	// StopState is the state a stop was asked for (cancelled, timed-out, reclaimed); the task
	// takes it when its process exits. Empty while no stop is asked.
	StopState  string
	StopReason string
	StopAt     *time.Time
	// TemplateID is the template the task was submitted from, at TemplateVersion; nil for
	// none.
	TemplateID      *int64
	TemplateVersion int
	// Kind is TaskKindService for an inference service's replica; empty (or TaskKindBatch)
	// for a batch task. A service's fields follow; they are zero on a batch task.
	Kind string
	// Model is the model tag a service serves.
	Model string
	// ServiceID is the service the replica belongs to: the id of its first replica's task.
	ServiceID *int64
	// Replicas is how many replicas the service was submitted with.
	Replicas int
	// MetricsPort and MetricsPath are where the replica's model server serves its
	// Prometheus page on its node.
	MetricsPort int
	MetricsPath string
	// HealthPath is where the replica's server answers whether it is healthy, on its metrics
	// port; empty for no probe.
	HealthPath string
	// TTFTTargetMS is the service's target for its time to first token at p95, in ms; 0 for
	// none. Above it for the alert window, the service raises an alert.
	TTFTTargetMS int `gorm:"column:ttft_target_ms"`
	// ScrapedAt is the end of the replica's last metrics delta stored (later ones only are
	// added); ScrapeError is its last scrape's failure, empty when it answered.
	ScrapedAt   *time.Time
	ScrapeError string
	// TrialID is the trial the task is a run of (Trial); nil for any other task.
	TrialID *int64
}

// Service reports whether t is a replica of an inference service.
func (t Task) Service() bool { return t.Kind == TaskKindService }

// Live reports whether t holds cards: starting or running.
func (t Task) Live() bool { return t.State == TaskStarting || t.State == TaskRunning }

// TaskEvent is one timestamped transition of a task, with its reason.
type TaskEvent struct {
	ID     int64
	TaskID int64
	At     time.Time
	From   string `gorm:"column:from_state"`
	To     string `gorm:"column:to_state"`
	Reason string
}

// Allocation is one GPU held by one task from StartedAt until EndedAt (nil while open). Its
// seconds are the ledger's unit.
type Allocation struct {
	ID        int64
	TaskID    int64
	GPUID     int64 `gorm:"column:gpu_id"`
	NodeID    int64
	ProjectID int64
	StartedAt time.Time
	EndedAt   *time.Time
	// Overflow is true when the task ran beyond its project's quota; its hours are priced
	// at the overflow rate.
	Overflow bool
	// Attempt is the task's attempt the card was given to. RerunFrom, set once that attempt
	// ended in a rerun, is from when its seconds were lost (the attempt's last checkpoint, or
	// the allocation's start): the ledger's rerun class.
	Attempt   int
	RerunFrom *time.Time
	// Trial is set when the task was a trial's run: the ledger's trial class.
	Trial bool
}

// TaskAttempt is one attempt of a task that ended and was rerun: when it ran, how and why it
// ended (Ending is EndLost or EndFailed; Reason the sentence), and the checkpoint the task
// had reported by then, which the next attempt resumes from.
type TaskAttempt struct {
	ID           int64
	TaskID       int64
	Attempt      int
	StartedAt    *time.Time
	EndedAt      time.Time
	Ending       string
	Reason       string
	CheckpointAt *time.Time
	Checkpoint   string
}
