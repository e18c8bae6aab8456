package tasks

import (
	"time"

	"kashi/api"
	"kashi/views"
)

// TaskPageData is everything the task page shows. Handlers fill it; templates only read it.
type TaskPageData struct {
	// Now is the render time in the viewer's zone; every time shown is in that zone.
	Now  time.Time
	Task TaskView
	// Full is true when the viewer sees the task's project: its log, command and buttons.
	// Others see who holds what, as the board shows it.
	Full bool
	// CanRun is true when the viewer may cancel and mark ready the task.
	CanRun bool
	// Wait is why the task waits now and when it may start; nil unless it waits.
	Wait *views.QueueRow
	// Quota is what the project would need to start the task when it waits on its limit of
	// cards; nil otherwise.
	Quota  *QuotaNeed
	Events []TaskEventView
	Cards  []TaskCardView
	// CardHours are the card-hours held so far (all cards, to now or the end).
	CardHours float64
	// RateFen is the pay-as-you-go price per card-hour of its cards, CostFen the cost so far
	// at that price (the bill decides); both 0 when no price is set.
	RateFen, CostFen int64
	// Notice is true while the task has an idle notice the viewer may answer (its owner, a
	// lead of its project, an admin): keep or release it.
	Notice  bool
	KeepFor time.Duration
	// ReclaimAt is when the noticed task's cards are reclaimed unless kept.
	ReclaimAt *time.Time
	Log       string
	// Poll is true while the task can still change: the live part refreshes itself.
	Poll bool
	// Advice is what the task's next run should ask for (package rightsize); nil without.
	Advice *views.TaskAdvice
	// Attempts are the task's runs, the first first; shown once it has had more than one.
	Attempts []AttemptView
}

// TaskView is one task as the pages show it.
type TaskView struct {
	ID      int64
	Name    string
	Project string
	Owner   string
	State   api.TaskState
	// Released is true when the task's cards were released in answer to its idle notice: it
	// ended in state reclaimed, which pages name "released".
	Released bool
	// Stopping is true once a stop was asked of a task that still runs (its process exits).
	Stopping    bool
	GPUs        int
	Spec        string // "" is any
	Queue       string
	Priority    string
	EstGPUHours float64
	MaxRuntime  time.Duration
	DataReady   bool
	SubmittedAt time.Time
	// StartedAt and EndedAt are zero until the task starts and ends.
	StartedAt time.Time
	EndedAt   time.Time
	// ExitCode is the process's exit status; nil when it has none.
	ExitCode    *int
	OutputUnits int64
	OutputUnit  string
	Command     []string
	// DataCheck is the path or URL its data check looks at, shown to its project while it
	// waits for its data; DataCheckedAt when the check last answered (zero before its first
	// answer).
	DataCheck     string
	DataCheckedAt time.Time
	// Attempt is the run that holds or will hold the task's cards, of at most MaxAttempts;
	// RerunOnFailure reruns it also when it fails by itself. Checkpoint and CheckpointAt are
	// its last checkpoint (zero time without one; Checkpoint its project's only).
	Attempt, MaxAttempts int
	RerunOnFailure       bool
	Checkpoint           string
	CheckpointAt         time.Time
	// MinInterNodeGbps, MinStorageMBps and AllowNoInterconnect are what it asks of the
	// pools it runs on (0 and false: nothing).
	MinInterNodeGbps, MinStorageMBps int
	AllowNoInterconnect              bool
	// TrialID is the trial the task is a run of; 0 for none. Service is set for an inference
	// service's replica, which is not tried.
	TrialID int64
	Service bool
}

// AttemptView is one run of a task: an earlier one that ended in a rerun, or its current one
// (Current; EndedAt zero while it runs, StartedAt zero before it starts). Ending is how it
// ended (models.TaskEnding's words, "" while it runs); Reason, Checkpoint are its project's
// only. LostS are the card-seconds of its work lost to its rerun.
type AttemptView struct {
	Attempt            int
	Current            bool
	Nodes              []string
	StartedAt, EndedAt time.Time
	Ending, Reason     string
	Checkpoint         string
	CheckpointAt       time.Time
	LostS              int64
}

// QuotaNeed is a task that waits on its project's limit of cards: the project holds InUse of
// Spec now, the task asks Asks more, and the limit is Limit. RequestURL opens the quota
// request form filled in for InUse + Asks.
type QuotaNeed struct {
	Spec               string
	InUse, Asks, Limit int
	RequestURL         string
}

// TaskEventView is one transition of a task.
type TaskEventView struct {
	At       time.Time
	From, To string
	Reason   string
	// Released is true when To is reclaimed because the cards were released in answer to an
	// idle notice.
	Released bool
}

// TaskCardView is one card a task held or holds, with its utilization and memory over the
// time it held it.
type TaskCardView struct {
	Node  string
	Index int
	// UUID is shown to admins only; "" for others.
	UUID        string
	Spec        string
	MemTotalMiB int64
	StartedAt   time.Time
	EndedAt     time.Time // zero while held
	Points      []ChartPoint
}

// ChartPoint is one rollup bucket of a card: mean utilization and mean memory used.
type ChartPoint struct {
	At      time.Time
	UtilPct int
	MemMiB  int64
}

// TaskListData is the tasks page: the filter, one page of tasks, and the filter's choices.
type TaskListData struct {
	Now     time.Time
	Filter  TaskListFilter
	Options TaskListOptions
	Rows    []TaskView
	// Page is 1-based; More is true when a next page exists.
	Page int
	More bool
	// InNoProject is true when the viewer sees no project's tasks: not an admin, a member of
	// none (a viewer, or finance).
	InNoProject bool
}

// TaskListFilter is the tasks page's selection; empty fields mean all. From and To are dates
// (yyyy-mm-dd) in the viewer's zone, both included.
type TaskListFilter struct {
	Mine     bool
	Project  string
	State    api.TaskState
	Spec     string
	From, To string
}

// Set reports whether the filter selects anything.
func (f TaskListFilter) Set() bool { return f != TaskListFilter{} }

// TaskListOptions are the choices of the tasks page's selects.
type TaskListOptions struct {
	Projects []string
	Specs    []string
	States   []api.TaskState
}
