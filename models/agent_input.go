package models

import "time"

// What the store takes from nodes. The handlers map the wire types of package api onto these,
// so storage never depends on the shape of a request.

// NodeRegistration is a node announcing itself and its GPUs.
type NodeRegistration struct {
	Hostname  string
	Pool      string
	MachineID string
	GPUs      []GPUInfo
	// NodeTokenHash is the hash of the token of the node being registered again, when the
	// agent sent it: the proof that lets it take its hostname back.
	NodeTokenHash string
	// JoinTokenHash is the hash of the single-use join token used, "" for the shared one. A
	// single-use token is an admin's decision: it registers again the node it is bound to, or
	// the node that has its machine id.
	JoinTokenHash string
	// From is the address the registration came from, for the audit log and alerts.
	From string
	// Cluster marks a registration by the controller of a Kubernetes pool's cluster (package
	// kube) of a node the cluster lists: the listing is the proof, so the pool's node of that
	// hostname is this node. No agent runs on such a node; its token is one nobody holds.
	Cluster bool
}

// GPUInfo describes one GPU of a registering node.
type GPUInfo struct {
	UUID           string
	Index          int
	Name           string
	MemoryTotalMiB int64
}

// Reading is one sample of one GPU.
type Reading struct {
	UUID          string
	TS            time.Time
	MemoryUsedMiB int64
	UtilPct       int
	TempC         int
	PowerW        int
	Processes     []ProcessReading
	// XID is an XID error the GPU raised since its previous reading (0 to MaxXID); 0 when
	// none. It raises an alert (AlertGPUXID).
	XID int
}

// ProcessReading is one compute or graphics process seen on a GPU.
type ProcessReading struct {
	PID           uint32
	UsedMemoryMiB int64
	// TaskID is the task the node matched the process to; 0 when none.
	TaskID int64
	// Unmanaged marks a process of no task; User and Command say who runs it.
	Unmanaged bool
	User      string
	Command   string
}

// Assignment is one task placed on a node, as the node should run it.
type Assignment struct {
	TaskID   int64
	GPUUUIDs []string
	Command  []string
	Env      map[string]string
	Workdir  string
	Image    string
	// Mounts are the data mounts of the task's container: its node's pool's
	// (PoolConfig.Mounts), for a task with an Image.
	Mounts      []string
	MaxRuntimeS int64
	Stop        bool
	// NodeRank is this node's rank among the task's NNodes nodes; MasterAddr and MasterPort
	// name the rank-0 node's rendezvous. WorldSize counts the task's GPUs and Rank is the
	// global rank of this node's first GPU (the GPUs of the lower ranks before it).
	NodeRank   int
	NNodes     int
	WorldSize  int
	Rank       int
	MasterAddr string
	MasterPort int
	// DataRegion and DataLocation are the node's region and where the task's data is there,
	// when the task names a data location for that region.
	DataRegion   string
	DataLocation string
	// MetricsPort and MetricsPath are where a service replica's model server serves its
	// metrics page on the node's loopback; 0 and "" for a batch task.
	MetricsPort int
	MetricsPath string
	// HealthPath is where the replica answers whether it is healthy, on MetricsPort; empty
	// for no probe.
	HealthPath string
	// Restart is true for a service replica: its node starts it again when it exits.
	Restart bool
	// Attempt is the task's run this is (1 for the first); ResumeFrom, from the second on,
	// the checkpoint it resumes from (see resumeFrom).
	Attempt    int
	ResumeFrom string
	// RunAsUser is the Unix account the task runs as on the node: its owner's (UnixAccount),
	// or, where the pool's AccountsByName is on and none is set, the owner's name; "" for
	// none. AllowRoot is the pool's: the task may run as root.
	RunAsUser string
	AllowRoot bool
	// MemoryLimitMiB and CPULimitMillis limit the task's host memory and CPUs on the node:
	// the pool's per-GPU settings times the task's GPUs there; 0 for the node's share.
	MemoryLimitMiB int64
	CPULimitMillis int64
}

// States a node reports for a task's process.
const (
	ReportRunning       = "running"
	ReportExited        = "exited"
	ReportFailedToStart = "failed-to-start"
)

// TaskReport is a node's report of a change in a task's process.
type TaskReport struct {
	State       string
	TS          time.Time
	ExitCode    int
	OutputUnits int64
	// OutputUnit names what OutputUnits count; CheckpointAt is the task's last checkpoint,
	// and Checkpoint where the task wrote it ("" when it did not say).
	OutputUnit   string
	CheckpointAt *time.Time
	Checkpoint   string
	Message      string
	// Attempt is the task's run the report is about; 0 from an agent that does not say.
	Attempt int
	// Cause is why the task failed when its node knows it (a Cause constant), with the Unix
	// Account it looked for and the MemoryLimitMiB the task passed.
	Cause          string
	Account        string
	MemoryLimitMiB int64
}

// Causes of a task's failure a node reports (TaskReport.Cause).
const (
	CauseNoAccount   = "no-account"
	CauseRootRefused = "root-refused"
	CauseMemoryLimit = "memory-limit"
	// CausePodDeleted: the pod of a task on a Kubernetes pool was deleted outside Kashi
	// while the task ran (reported by package kube, not by agents).
	CausePodDeleted = "pod-deleted"
)

// Limits on what a node may send.
const (
	// MaxGPUsPerNode is the most GPUs one node may register.
	MaxGPUsPerNode = 64
	// MaxFutureSkew is how far ahead of the server's clock a sample's timestamp may be.
	MaxFutureSkew = 5 * time.Minute
)
