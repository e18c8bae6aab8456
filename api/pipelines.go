package api

import (
	"encoding/json"
	"time"
)

// PipelineRequest submits a pipeline: a named DAG of stages, each an inline task or a
// template's (the stage's "template"), submitted as an ordinary task of the project once its
// parents are done.
type PipelineRequest struct {
	Project string `json:"project"`
	Name    string `json:"name"`
	// Owner is who the stages' tasks run for; only an admin may name someone else.
	Owner  string         `json:"owner,omitempty"`
	Stages []StageRequest `json:"stages"`
	// Template submits the pipeline template with this id instead, named after it, for the
	// caller (a member of its project); project, name, owner and stages are then left out.
	Template int64 `json:"template,omitempty"`
}

// PipelineSubmission is the body of POST /api/v1/pipelines as the server reads it, and a
// pipeline file (YAML or JSON) as /pipelines reads it: a PipelineRequest whose stages are
// kept as sent, so each is read over its template's fields (a StageRequest each).
type PipelineSubmission struct {
	PipelineRequest
	Stages []json.RawMessage `json:"stages"`
}

// StageRequest is one stage: the fields of a task submission (its project and owner are
// the pipeline's), its name, the stages it follows and where it writes.
type StageRequest struct {
	TaskRequest
	// Name names the stage: 1 to 40 lowercase letters, digits or '-', starting with a letter.
	Name string `json:"name"`
	// After are the stages that must succeed before this one is submitted; AfterEnded those
	// that must have ended, whatever the outcome.
	After      []string `json:"after,omitempty"`
	AfterEnded []string `json:"after_ended,omitempty"`
	// Output is where the stage writes on shared storage (an absolute path or a URI); the
	// stages after it are given it as KASHI_STAGE_INPUT and wait for it to be visible.
	Output string `json:"output,omitempty"`
}

// Pipeline is a pipeline with its stages, what it was estimated to take and what it took.
type Pipeline struct {
	ID      int64  `json:"id"`
	Project string `json:"project"`
	Name    string `json:"name"`
	Owner   string `json:"owner"`
	// State is running, succeeded, failed or cancelled; Reason names the stage that failed
	// ("stage NAME"), or who cancelled it ("cancelled USER").
	State       string     `json:"state"`
	Reason      string     `json:"reason,omitempty"`
	Run         int        `json:"run"`
	SubmittedAt time.Time  `json:"submitted_at"`
	EndedAt     *time.Time `json:"ended_at,omitempty"`
	// EstCardHours and EstCostFen are the stages' estimates (at this month's prices);
	// CardHours and CostFen what their tasks held so far, every run, as the project's bills
	// of those months price them, as of now.
	EstCardHours float64 `json:"est_card_hours"`
	EstCostFen   int64   `json:"est_cost_fen"`
	CardHours    float64 `json:"card_hours"`
	CostFen      int64   `json:"cost_fen"`
	Stages       []Stage `json:"stages,omitempty"`
}

// Stage is one stage of a pipeline as it stands.
type Stage struct {
	Name       string   `json:"name"`
	After      []string `json:"after,omitempty"`
	AfterEnded []string `json:"after_ended,omitempty"`
	Output     string   `json:"output,omitempty"`
	// State is waiting, submitted, succeeded, failed or skipped; Reason says why a stage
	// failed or was skipped.
	State  string `json:"state"`
	Reason string `json:"reason,omitempty"`
	// Task is the stage's current task; absent while it waits or when it was skipped.
	Task      *int64 `json:"task,omitempty"`
	TaskState string `json:"task_state,omitempty"`
	Spec      string `json:"spec,omitempty"`
	GPUs      int    `json:"gpus"`
	// Cards is how many cards its task holds now.
	Cards        int     `json:"cards"`
	EstCardHours float64 `json:"est_card_hours"`
	CardHours    float64 `json:"card_hours"`
	CostFen      int64   `json:"cost_fen"`
}

// Pipeline and stage states.
const (
	PipelineRunning   = "running"
	PipelineSucceeded = "succeeded"
	PipelineFailed    = "failed"
	PipelineCancelled = "cancelled"
	StageWaiting      = "waiting"
	StageSubmitted    = "submitted"
	StageSucceeded    = "succeeded"
	StageFailed       = "failed"
	StageSkipped      = "skipped"
)
