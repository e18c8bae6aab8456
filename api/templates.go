package api

import "time"

// TemplateRequest is the body of POST /api/v1/projects/{id}/templates and
// POST /api/v1/templates/{id}: a name, a description and the task's fields.
type TemplateRequest struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	TemplateBody
}

// Template is a task template as the API shows it; Versions and Schedules only on its own
// page (GET /api/v1/templates/{id}).
type Template struct {
	ID          int64  `json:"id"`
	ProjectID   int64  `json:"project_id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Version     int    `json:"version"`
	TemplateBody
	CreatedBy string    `json:"created_by"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// Uses counts the tasks submitted from the template.
	Uses      int64             `json:"uses"`
	Versions  []TemplateVersion `json:"versions,omitempty"`
	Schedules []Schedule        `json:"schedules,omitempty"`
}

// TemplateVersion is one version of a template; Restores is the earlier version it made
// current again (a rollback), absent for a change of its own.
type TemplateVersion struct {
	Version     int           `json:"version"`
	By          string        `json:"by"`
	At          time.Time     `json:"at"`
	Description string        `json:"description"`
	Changes     []FieldChange `json:"changes"`
	Body        TemplateBody  `json:"body"`
	Restores    int           `json:"restores,omitempty"`
}

// FieldChange is one field a template version changed: its JSON name and its value before
// and after, as text.
type FieldChange struct {
	Field  string `json:"field"`
	Before string `json:"before"`
	After  string `json:"after"`
}

// ScheduleRequest is the body of POST /api/v1/templates/{id}/schedules.
type ScheduleRequest struct {
	Cron           string `json:"cron"`
	TimeZone       string `json:"time_zone"`
	Overlap        string `json:"overlap"`
	StartDeadlineS int64  `json:"start_deadline_s"`
}

// Schedule is a template's schedule with its next five planned times and its latest runs.
type Schedule struct {
	ID             int64  `json:"id"`
	TemplateID     int64  `json:"template_id"`
	Cron           string `json:"cron"`
	TimeZone       string `json:"time_zone"`
	Overlap        string `json:"overlap"`
	StartDeadlineS int64  `json:"start_deadline_s"`
	Suspended      bool   `json:"suspended"`
	// SuspendedWhy is why Kashi suspended it: owner-missing, owner-disabled or owner-left;
	// absent when a lead did, or it runs.
	SuspendedWhy string        `json:"suspended_why,omitempty"`
	Owner        string        `json:"owner"`
	CreatedAt    time.Time     `json:"created_at"`
	Next         []time.Time   `json:"next"`
	Runs         []ScheduleRun `json:"runs"`
}

// ScheduleRun is one run of a schedule and its outcome.
type ScheduleRun struct {
	PlannedAt       time.Time `json:"planned_at"`
	Outcome         string    `json:"outcome"`
	Detail          string    `json:"detail"`
	TemplateVersion int       `json:"template_version"`
	TaskID          *int64    `json:"task_id"`
	TaskState       string    `json:"task_state"`
	// PipelineID is the pipeline a pipeline template's run submitted.
	PipelineID *int64 `json:"pipeline_id,omitempty"`
}
