package bills

import (
	"time"

	"kashi/views"
)

// ReportData is the weekly utilization report: held (nominal) against effective card time
// per project, node and spec, the tasks that left most cards idle, and card time per output
// unit. Time is seconds; handlers fill it.
type ReportData struct {
	// Week is the ISO week shown ("2026-W10"); Prev and Next its neighbours, Next "" when
	// that week has not begun.
	Week, Prev, Next string
	// From and To bound the week in the billing time zone (To exclusive); AsOf is when
	// open allocations were cut, before To while the week runs.
	From, To, AsOf time.Time
	TimeZone       string
	Total          ReportUsage
	Projects       []ReportUsage
	Nodes          []ReportUsage
	Specs          []ReportUsage
	// ShowUnheld is true when the report covers every project: nodes' unheld time.
	ShowUnheld bool
	TopIdle    []ReportIdleTask
	// OutputProjects and OutputTags are the cost per output unit per project and per model
	// tag, of the tasks that ended in the week having reported output.
	OutputProjects []ReportOutput
	OutputTags     []ReportOutput
	// Notice says the page opened on another week than the last one that ended, which
	// held no card.
	Notice string
	// Misses are, per project, the tasks ended in the week whose estimate missed their
	// actual card time the most.
	Misses []ReportMiss
	// Templates are the week's card time and cost of the tasks from each template.
	Templates []views.ReportTemplate
	// Models are the week's card time and cost of each inference service, by model tag.
	Models []ReportModel
	// Advice are, per project, the ended tasks whose next run could ask for fewer or
	// cheaper cards, the biggest savings first.
	Advice []ReportAdvice
	// Reruns are, per project, the week's card time lost to reruns and its cost.
	Reruns []ReportClassUse
	// Trials are, per project, the week's card time of trials' runs and its cost.
	Trials []ReportClassUse
	// Pipelines are the week's pipelines' stages' card time and cost, as the bill shows them.
	Pipelines []PipelineStages
	// Changes are the setting changes made in the week, oldest first.
	Changes []ReportChange
}

// ReportChange is a setting change of the week: which, when and by whom, and the sentence
// that says what it saved (or when it will be measured), as the weekly message says it.
type ReportChange struct {
	// Kind is the change's (a pool's settings, a price), Name names it, URL is its page.
	Kind, Name, URL string
	At              time.Time
	By, Note        string
	Sentence        string
	// Linked: the viewer may open the change's page.
	Linked bool
}

// ReportClassUse is one project's card time in the week of a ledger class with its own bill
// line (reruns: the tasks rerun and the seconds lost since their checkpoints; trials: the
// trials' runs and their seconds): how many, the seconds and what those cost, priced as the
// project's bill lines.
type ReportClassUse struct {
	Project      string
	Count        int
	Seconds      int64
	CostFen      int64
	MissingPrice bool
}

// ReportAdvice is an ended task's rightsizing advice in the week's report: what its run
// had, what its next run should ask for, and what the run would have cost less.
type ReportAdvice struct {
	TaskID               int64
	Task, Project, Owner string
	RuntimeS             int64
	Advice               views.TaskAdvice
	SavingFen            int64
}

// ReportMiss is a task's estimated card time against its actual (whole task).
type ReportMiss struct {
	TaskID                     int64
	Task, Project, Owner       string
	EstimatedS, ActualS, MissS int64
}

// ReportUsage is one project's, node's or spec's card time in the week. Active, idle and
// other (low-util, setup, no data, rerun) add up to NominalS.
type ReportUsage struct {
	Key                                 string
	NominalS, EffectiveS, IdleS, OtherS int64
	LowUtilS                            int64
	ProvisionedS, UnheldS               int64
}

// ReportIdleTask is a task with idle cards in the week.
type ReportIdleTask struct {
	TaskID                     int64
	Task, Project, Owner, Spec string
	// Ending is how the task ended, "" while it runs.
	Ending                      string
	GPUs                        int
	NominalS, EffectiveS, IdleS int64
}

// ReportOutput is what the tasks of a project or tag spent for their output.
type ReportOutput struct {
	Key                                string
	Tasks                              int
	Units, NominalS, EffectiveS        int64
	NominalPerUnitS, EffectivePerUnitS int64
}

// ReportModel is one inference service's card time in the week and its cost, priced as its
// bill lines would be.
type ReportModel struct {
	ServiceID               int64
	Model, Service, Project string
	Replicas                int
	NominalS, EffectiveS    int64
	CostFen                 int64
	MissingPrice            bool
}
