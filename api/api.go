// Package api holds the wire types of the HTTP API and its error body: the agent protocol,
// the user API's requests and answers, and the codes they carry (task states, wait reasons,
// GPU states), each with its complete list. The node agent, the server's handlers, the pages
// and the CLI all import it, so no two sides can drift; the store never sees these types
// (handlers map them onto models' own).
package api

import "time"

// Paths of the agent API, relative to the server's base URL.
const (
	PathRegister    = "/api/v1/agent/register"
	PathSamples     = "/api/v1/agent/samples"
	PathAssignments = "/api/v1/agent/assignments"
	// QueryRunning is the query parameter of PathAssignments that lists, comma-separated,
	// the ids of the tasks whose processes run on the node now.
	QueryRunning = "running"
	// QueryWait is the query parameter of PathAssignments that asks the server to hold the
	// request, up to MaxAssignmentsWait, until the node's assignments differ from the answer
	// whose ETag the request sends in If-None-Match (a long poll); "0s" or none answers at
	// once. A server that waits says so in HeaderAssignmentsWait.
	QueryWait = "wait"
	// PathTaskStatus is followed by the task id and "/status".
	PathTaskStatus = "/api/v1/agent/tasks/"
)

// MaxAssignmentsWait bounds QueryWait; DefaultAssignmentsWait is the agent's.
const (
	MaxAssignmentsWait     = 60 * time.Second
	DefaultAssignmentsWait = 30 * time.Second
)

// HeaderAssignmentsWait is set on the assignments answer of a server that held the request
// for QueryWait, to the wait it honoured: an agent that asked for a wait and finds no such
// header talks to an older server and polls instead.
const HeaderAssignmentsWait = "X-Kashi-Assignments-Wait"

// HeaderAssignmentsChanged is set on an assignments answer whose list differs from the
// request's If-None-Match: when the node's assignments last changed (RFC 3339 with
// microseconds), so an agent can tell how long a placement took to reach it.
const HeaderAssignmentsChanged = "X-Kashi-Assignments-Changed"

// HeaderNodeToken carries a registered node's own token when its agent registers again (after
// a restart or a GPU swap): a node's hostname, machine id and GPUs are its own, and another
// registration gets them only with a single-use join token an admin issued for that node or
// its machine id (409 naming the field otherwise).
const HeaderNodeToken = "X-Kashi-Node-Token"

// JoinTokenRequest asks for a single-use join token (POST /api/v1/join-tokens, admins): bound
// to a machine id (the registration must send it; it registers that machine, new or
// registered), to a registered node (it registers that node again, whose agent lost its
// token), or to both.
type JoinTokenRequest struct {
	MachineID string `json:"machine_id,omitempty"`
	NodeID    int64  `json:"node_id,omitempty"`
}

// JoinToken is an issued single-use join token; Token is shown once.
type JoinToken struct {
	ID        int64     `json:"id"`
	Token     string    `json:"token"`
	MachineID string    `json:"machine_id"`
	NodeID    int64     `json:"node_id,omitempty"`
	CreatedAt time.Time `json:"created_at"`
}

// Limits the server enforces on agent input.
const (
	// MaxSamplesPerBatch is the most samples one POST to PathSamples may carry.
	MaxSamplesPerBatch = 10_000
	// MaxBodyBytes bounds every agent request body.
	MaxBodyBytes = 8 << 20
)

// RegisterRequest announces a node and its GPUs. The agent authenticates with the join token;
// the response carries the node's own token, used for every later call.
type RegisterRequest struct {
	Hostname string `json:"hostname"`
	// Pool names the pool the node belongs to; the server creates it on first use.
	Pool string `json:"pool"`
	// MachineID is the provider's id for the machine, when a provider created it.
	MachineID string    `json:"machine_id,omitempty"`
	GPUs      []GPUInfo `json:"gpus"`
}

// GPUInfo describes one GPU as NVML reports it.
type GPUInfo struct {
	UUID           string `json:"uuid"`
	Index          int    `json:"index"`
	Name           string `json:"name"`
	MemoryTotalMiB int64  `json:"memory_total_mib"`
}

// RegisterResponse returns the node's id and its bearer token. The token is shown once; the
// server keeps only its hash.
type RegisterResponse struct {
	NodeID int64  `json:"node_id"`
	Token  string `json:"token"`
	// PrePull names the container images the node's tasks likely need (those of tasks
	// waiting for the pool's spec and of their projects' templates, at most five); an agent
	// with a container runtime pulls them before it takes tasks.
	PrePull []string `json:"pre_pull,omitempty"`
}

// SamplesRequest is a batch of per-GPU readings. Samples are idempotent on (uuid, ts).
type SamplesRequest struct {
	Samples []Sample `json:"samples"`
	// DroppedSamples counts the samples the agent's spool dropped, oldest first, while the
	// server could not be reached; sent once, with the first batch that gets through.
	DroppedSamples int64 `json:"dropped_samples,omitempty"`
	// Logs carries the new lines of the tasks' logs since the last batch, at most
	// MaxLogTailBytes per task.
	Logs []TaskLog `json:"logs,omitempty"`
	// Serving carries, for each service replica on the node, what its model server counted
	// since the last scrape, or why the scrape failed.
	Serving []ServingReport `json:"serving,omitempty"`
}

// MaxServingReports bounds the serving reports of one batch.
const MaxServingReports = 1024

// ServingReport is one scrape of a service replica's metrics page: the difference from the
// replica's previous scrape (all the models on its page added up), or Error when the page
// could not be read. Reports are idempotent on (task_id, ts): the server adds only those
// later than the last it stored for the replica.
type ServingReport struct {
	TaskID int64     `json:"task_id"`
	TS     time.Time `json:"ts"`
	// Error says why the page could not be read; the counts are then zero.
	Error string `json:"error,omitempty"`
	// Server is the model server (vllm, sglang, tgi) and Model the model it names.
	Server string `json:"server,omitempty"`
	Model  string `json:"model,omitempty"`
	// Restarted is true when the model server restarted since the previous scrape: the
	// counts are all it counted since.
	Restarted        bool    `json:"restarted,omitempty"`
	Requests         float64 `json:"requests"`
	PromptTokens     float64 `json:"prompt_tokens"`
	GenerationTokens float64 `json:"generation_tokens"`
	// Running is the requests in flight at the scrape.
	Running float64 `json:"running"`
	// TTFT and E2E are the new observations of time to first token and end-to-end latency,
	// in seconds; nil when the server exposes none.
	TTFT *Histogram `json:"ttft,omitempty"`
	E2E  *Histogram `json:"e2e,omitempty"`
}

// Histogram is a Prometheus histogram on the wire: the finite bucket bounds, ascending, and
// the cumulative counts, one more than the bounds (the last is the +Inf bucket's).
type Histogram struct {
	Bounds []float64 `json:"bounds"`
	Counts []uint64  `json:"counts"`
	Sum    float64   `json:"sum"`
}

// MaxOutputUnits is the most output a task may report (models.MaxOutputUnits); the agent
// ignores a larger count, and the server refuses it (422, output_units).
const MaxOutputUnits = 1_000_000_000

// MaxLogTailBytes is how much of a task's log the server keeps, and the most one TaskLog
// may carry.
const MaxLogTailBytes = 64 << 10

// TaskLog is a piece of a task's log: Text starts at byte Offset of the log file on the node
// (the full log stays there, under <state-dir>/tasks/<id>/output.log). Offsets make resent
// pieces harmless.
type TaskLog struct {
	TaskID int64  `json:"task_id"`
	Offset int64  `json:"offset"`
	Text   string `json:"text"`
}

// Sample is one reading of one GPU.
type Sample struct {
	UUID          string    `json:"uuid"`
	TS            time.Time `json:"ts"`
	MemoryUsedMiB int64     `json:"memory_used_mib"`
	UtilPct       int       `json:"util_pct"`
	TempC         int       `json:"temp_c"`
	PowerW        int       `json:"power_w"`
	Processes     []Process `json:"processes,omitempty"`
	// XID is an XID error the GPU raised since the previous sample (its number, 0 to MaxXID,
	// as dcgm-exporter's DCGM_FI_DEV_XID_ERRORS gives it); 0 when none. The server raises
	// an alert.
	XID int `json:"xid,omitempty"`
}

// MaxXID is the largest XID error number a sample may carry.
const MaxXID = 65535

// Process is one compute or graphics process seen on a GPU.
type Process struct {
	PID           uint32 `json:"pid"`
	UsedMemoryMiB int64  `json:"used_memory_mib"`
	// TaskID is the task the process belongs to, found through the process tree of the
	// task's supervisor; 0 when none.
	TaskID int64 `json:"task_id,omitempty"`
	// Unmanaged marks a process of no task: someone uses the GPU outside Kashi. User and
	// Command say who, as far as the agent can read them.
	Unmanaged bool   `json:"unmanaged,omitempty"`
	User      string `json:"user,omitempty"`
	Command   string `json:"command,omitempty"`
}

// SamplesResponse says how many samples were stored and how many were already known.
type SamplesResponse struct {
	Accepted   int `json:"accepted"`
	Duplicates int `json:"duplicates"`
}

// AssignmentsResponse lists what the node should be running now. Tasks absent from the list
// and running on the node are to be stopped.
type AssignmentsResponse struct {
	Tasks []Assignment `json:"tasks"`
}

// Assignment is one task placed on the node.
type Assignment struct {
	TaskID   int64             `json:"task_id"`
	GPUUUIDs []string          `json:"gpu_uuids"`
	Command  []string          `json:"command"`
	Env      map[string]string `json:"env,omitempty"`
	Workdir  string            `json:"workdir,omitempty"`
	// Image, when set, is the container image the command runs in, with only the task's GPUs.
	Image string `json:"image,omitempty"`
	// Mounts are the data mounts of the task's container from its pool's settings,
	// "/host:/container[:ro]"; the node's own --container-mounts add to them.
	Mounts []string `json:"mounts,omitempty"`
	// MaxRuntimeS is the task's runtime limit in seconds; the server also enforces it.
	MaxRuntimeS int64 `json:"max_runtime_s"`
	// Stop asks the agent to stop the task: stop signal, grace, then kill.
	Stop bool `json:"stop,omitempty"`
	// NodeRank is this node's rank among the task's NNodes nodes (a task larger than a node
	// gets whole nodes); MasterAddr and MasterPort name the rank-0 node's rendezvous.
	// WorldSize counts the task's GPUs; Rank is the global rank of this node's first GPU.
	NodeRank   int    `json:"node_rank"`
	NNodes     int    `json:"nnodes"`
	WorldSize  int    `json:"world_size"`
	Rank       int    `json:"rank"`
	MasterAddr string `json:"master_addr,omitempty"`
	MasterPort int    `json:"master_port,omitempty"`
	// DataRegion is the node's region and DataLocation where the task's data is there (a
	// path or URI from the task's data_locations), set only when the task names one for the
	// region; the agent passes them as KASHI_DATA_REGION and KASHI_DATA_LOCATION.
	DataRegion   string `json:"data_region,omitempty"`
	DataLocation string `json:"data_location,omitempty"`
	// MetricsPort and MetricsPath are, for a service replica, where its model server serves
	// its Prometheus page on the node's loopback; the agent scrapes it every sample tick.
	MetricsPort int    `json:"metrics_port,omitempty"`
	MetricsPath string `json:"metrics_path,omitempty"`
	// HealthPath, for a service replica, is where its server answers whether it is healthy,
	// on MetricsPort: the agent probes it every sample tick and restarts a replica that stops
	// answering 2xx. Empty for no probe.
	HealthPath string `json:"health_path,omitempty"`
	// Restart asks the agent to start the process again, after a backoff, whenever it exits
	// by itself (a service replica); a batch task's exit is reported and it never runs again.
	Restart bool `json:"restart,omitempty"`
	// Attempt is the task's run this is, 1 for the first (absent from servers before reruns):
	// a task whose node was lost runs again, perhaps on this node, as a new attempt.
	// ResumeFrom, from the second attempt on, is the checkpoint it resumes from: where the task
	// said it wrote its last one (KASHI_CHECKPOINT), else that checkpoint's time in RFC 3339.
	// The agent passes them as KASHI_ATTEMPT and KASHI_RESUME_FROM.
	Attempt    int    `json:"attempt,omitempty"`
	ResumeFrom string `json:"resume_from,omitempty"`
	// RunAsUser is the Unix account the task runs as on the node, with its uid, gid and
	// groups there: its owner's, "" when the owner has none. The task fails to start when the
	// node has no such account, or when it would run as root (uid 0, or the agent's own user
	// for "" on an agent that runs as root) and AllowRoot, the pool's setting, is off.
	RunAsUser string `json:"run_as_user,omitempty"`
	AllowRoot bool   `json:"allow_root,omitempty"`
	// MemoryLimitMiB and CPULimitMillis limit the task's host memory and CPUs on the node (its
	// cgroup): the pool's per-GPU settings times the task's GPUs there. 0 gives the task the
	// node's share: the node's memory or CPUs times the task's GPUs over the node's GPUs.
	MemoryLimitMiB int64 `json:"memory_limit_mib,omitempty"`
	CPULimitMillis int64 `json:"cpu_limit_millis,omitempty"`
}

// Task states an agent reports.
const (
	TaskRunning = "running"
	TaskExited  = "exited"
	// TaskFailedToStart means the process could not be started (bad command, workdir).
	TaskFailedToStart = "failed-to-start"
)

// TaskStatusRequest reports a change in a task's process.
type TaskStatusRequest struct {
	State    string    `json:"state"`
	TS       time.Time `json:"ts"`
	ExitCode int       `json:"exit_code"`
	// OutputUnits is the task's output so far (a running report may carry it), counted in
	// OutputUnit (samples, tokens, images…); CheckpointAt is its last checkpoint, and
	// Checkpoint where the task wrote it, when its KASHI_CHECKPOINT line said.
	OutputUnits  int64      `json:"output_units,omitempty"`
	OutputUnit   string     `json:"output_unit,omitempty"`
	CheckpointAt *time.Time `json:"checkpoint_at,omitempty"`
	Checkpoint   string     `json:"checkpoint,omitempty"`
	Message      string     `json:"message,omitempty"`
	// Attempt is the task's run the report is about (the assignment's); a report about an
	// earlier attempt than the task's now changes nothing.
	Attempt int `json:"attempt,omitempty"`
	// Cause says why the task failed when the agent knows it (one of the Cause constants),
	// with Account, the Unix account it looked for, and MemoryLimitMiB, the limit the task
	// passed; the server writes the task's reason from them.
	Cause          string `json:"cause,omitempty"`
	Account        string `json:"account,omitempty"`
	MemoryLimitMiB int64  `json:"memory_limit_mib,omitempty"`
}

// Causes of a task's failure an agent reports (TaskStatusRequest.Cause).
const (
	// CauseNoAccount: failed to start, for the node has no Unix account Account ("" when the
	// task's owner has none and the pool does not let the task run as the agent's user).
	CauseNoAccount = "no-account"
	// CauseRootRefused: failed to start, for it would run as root and its pool does not
	// allow it (AllowRoot).
	CauseRootRefused = "root-refused"
	// CauseMemoryLimit: exited, not 0, after the kernel's OOM killer stopped a process of the
	// task in its cgroup: it used more host memory than its limit, MemoryLimitMiB.
	CauseMemoryLimit = "memory-limit"
)

// Error is the body of every 4xx and 5xx answer of the API. Error and Field are the first
// problem; a refused input (422, 400 naming fields) lists every bad field in Errors, the
// first of them being Field, so that a form names them all at once.
type Error struct {
	Error  string       `json:"error"`
	Field  string       `json:"field,omitempty"`
	Errors []FieldError `json:"errors,omitempty"`
}

// FieldError is one bad field of a refused input: its name as the request spells it and
// what is wrong with it.
type FieldError struct {
	Field string `json:"field"`
	Error string `json:"error"`
}
