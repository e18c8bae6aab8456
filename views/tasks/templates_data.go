package tasks

import (
	"time"

	"github.com/a-h/templ"

	"kashi/views"
)

// TemplatesData is a project's templates page (任务模板, the project's assets): every
// template with its uses, and for the project's leads the form that adds one.
type TemplatesData struct {
	ProjectID int64
	Project   string
	// CanEdit shows the forms (the project's leads and admins).
	CanEdit   bool
	Templates []TemplateRowView
	// Form holds a refused create, or the defaults.
	Form TemplateForm
	// Specs and Regions fill the pickers of the specs and regions a template accepts.
	Specs, Regions []string
}

// TemplateRowView is one template of the list.
type TemplateRowView struct {
	ID                int64
	Name, Description string
	Version           int
	Uses              int64
	GPUs              int
	Specs             []string
	Queue             string
	UpdatedAt         time.Time
	// Stages counts a pipeline template's stages; 0 for a task template.
	Stages int
}

// TemplateForm is the template form's text as typed. EnvNames are the variables asked at
// submit, one per line. Errors holds a problem per input name, as the submit form's.
type TemplateForm struct {
	Name, Description                            string
	GPUs, Queue, Priority                        string
	Specs, Regions                               []string
	EstGPUHours, MaxRuntimeH                     string
	Command, EnvNames, Workdir, Image, DataCheck string
	// DataLocations are region=location lines.
	DataLocations string
	Deferrable    bool
	// MaxAttempts is the most runs of its tasks ("" for the default); RerunOnFailure reruns
	// them also when they exit non-zero by themselves.
	MaxAttempts    string
	RerunOnFailure bool
	// MinInterNodeGbps and MinStorageMBps are its tasks' minimums ("" for none);
	// AllowNoInterconnect lets them run across nodes without a network between them.
	MinInterNodeGbps, MinStorageMBps string
	AllowNoInterconnect              bool
	Errors                           map[string]views.FormError
}

// TemplateData is one template's page: its fields, the form that changes it (a new
// version), its versions with who, when and what changed, the link that submits from it,
// and its schedules.
type TemplateData struct {
	ID, ProjectID int64
	Project       string
	Name          string
	Description   string
	Version       int
	Uses          int64
	// Fields are the current fields; Form the edit form (a refused change, or the fields).
	Fields   TemplateForm
	Form     TemplateForm
	CanEdit  bool
	Versions []TemplateVersionView
	// Schedules run the template; ScheduleForm adds one (leads).
	Schedules    []ScheduleView
	ScheduleForm ScheduleForm
	// Schedulable is false when the template asks for env values: nobody is there to give
	// them when a schedule runs.
	Schedulable bool
	Specs       []string
	Regions     []string
	// Zones fill the time-zone picker's suggestions.
	Zones []string
	// Notice confirms what was just saved: NoticeSaved, NoticeScheduled, NoticeSuspended,
	// NoticeResumed, NoticeRolledBack, NoticeUnchanged.
	Notice string
	// RollbackError says why rolling back to a version was refused; "" for none.
	RollbackError string
	// Advice is the rightsizing advice for the next run, from the latest runs; nil without.
	Advice *TemplateAdvice
	// Stages are a pipeline template's stages (none for a task template); CanSubmit says
	// whether the viewer may submit it (a member of its project, or an admin).
	Stages    []TemplateStageView
	CanSubmit bool
}

// TemplateStageView is one stage of a pipeline template: its name, the stages it follows,
// and its task's fields.
type TemplateStageView struct {
	Name              string
	After, AfterEnded []string
	Fields            TemplateForm
}

// TemplateAdvice is the advice for a template's next run read from its Runs latest runs;
// SubmitURL opens the submit form from the template as advised.
type TemplateAdvice struct {
	Runs      int
	SubmitURL templ.SafeURL
	views.TaskAdvice
}

// Notices of the template page.
const (
	NoticeSaved     = "saved"
	NoticeCreated   = "created"
	NoticeScheduled = "scheduled"
	NoticeSuspended = "suspended"
	NoticeResumed   = "resumed"
	// NoticeRolledBack: an earlier version was made current again (Versions[0].Restores).
	NoticeRolledBack = "rolled-back"
	// NoticeUnchanged: the version rolled back to has the current fields; nothing changed.
	NoticeUnchanged = "unchanged"
)

// TemplateVersionView is one version of a template: Restores is the earlier version it made
// current again (a rollback), 0 for a change of its own.
type TemplateVersionView struct {
	Version  int
	By       string
	At       time.Time
	Changes  []FieldChangeView
	Restores int
}

// FieldChangeView is one field a version changed, its values as JSON.
type FieldChangeView struct {
	Field, Before, After string
}

// ScheduleView is one schedule of a template: its next five runs in its own zone (none
// while suspended) and its latest runs, newest first.
type ScheduleView struct {
	ID             int64
	Cron, TimeZone string
	Overlap        string
	StartDeadline  time.Duration
	Suspended      bool
	// SuspendedWhy is why Kashi suspended it (models.OwnerLeft…); empty when a lead did.
	SuspendedWhy string
	Owner        string
	Next         []time.Time
	Runs         []ScheduleRunView
}

// ScheduleRunView is one run of a schedule: when it was planned (in the schedule's zone),
// its outcome (pending, submitted, skipped, missed, failed), the task it submitted (0 for
// none) and that task's state.
type ScheduleRunView struct {
	PlannedAt time.Time
	Outcome   string
	Detail    string
	TaskID    int64
	TaskState string
	// PipelineID is the pipeline a pipeline template's run submitted; 0 for none.
	PipelineID int64
}

// ScheduleForm is the schedule form's text as typed; Field and Error name a refused field.
type ScheduleForm struct {
	Cron, TimeZone, Overlap, StartDeadlineMin string
	Problems                                  views.Problems
}

// ScheduleFields are the schedule form's fields in its order, as the store names them.
var ScheduleFields = []string{"cron", "time_zone", "overlap", "start_deadline_s"}
