package tasks

import (
	"encoding/json"
	"time"

	"kashi/api"
	"kashi/models"
	"kashi/schedule"
)

// maxTemplateBody bounds a template as sent.
const maxTemplateBody = 128 << 10

// templateRequest is the body of POST /api/v1/projects/:id/templates and
// POST /api/v1/templates/:id: a name, a description and the task's fields.
type templateRequest struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	api.TemplateBody
}

// newTemplateRequest is a request with the API's defaults: the long lane, normal priority.
func newTemplateRequest() templateRequest {
	return templateRequest{TemplateBody: api.TemplateBody{Queue: models.QueueLong, Priority: models.PriorityNormal}}
}

// stageDefaults gives a pipeline template's stages the API's defaults (the long lane,
// normal priority) where they name none, and clears the template's own, which a pipeline
// template does not have.
func stageDefaults(b *api.TemplateBody) {
	if len(b.Stages) == 0 {
		return
	}
	for i := range b.Stages {
		if b.Stages[i].Task.Queue == "" {
			b.Stages[i].Task.Queue = models.QueueLong
		}
		if b.Stages[i].Task.Priority == "" {
			b.Stages[i].Task.Priority = models.PriorityNormal
		}
	}
	b.Queue, b.Priority = "", ""
}

// sameJSON is v as a T, a type that writes the same JSON (a template body in the API's form
// and in the store's; TestTemplateBodyForms holds them equal). v is plain data: it always
// encodes, and its JSON always decodes into a T.
func sameJSON[T any](v any) T {
	var out T
	b, _ := json.Marshal(v)
	json.Unmarshal(b, &out)
	return out
}

// templateJSON is a template as the API shows it; Versions and Schedules only on its own
// page.
type templateJSON struct {
	ID          int64  `json:"id"`
	ProjectID   int64  `json:"project_id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Version     int    `json:"version"`
	api.TemplateBody
	CreatedBy string    `json:"created_by"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// Uses counts the tasks submitted from the template.
	Uses      int64          `json:"uses"`
	Versions  []versionJSON  `json:"versions,omitempty"`
	Schedules []scheduleJSON `json:"schedules,omitempty"`
}

// versionJSON is one version of a template; Restores is the earlier version it made current
// again (a rollback), absent for a change of its own.
type versionJSON struct {
	Version     int                  `json:"version"`
	By          string               `json:"by"`
	At          time.Time            `json:"at"`
	Description string               `json:"description"`
	Changes     []models.FieldChange `json:"changes"`
	Body        api.TemplateBody     `json:"body"`
	Restores    int                  `json:"restores,omitempty"`
}

// scheduleJSON is a schedule with its next five planned times and its latest runs.
type scheduleJSON struct {
	ID             int64  `json:"id"`
	TemplateID     int64  `json:"template_id"`
	Cron           string `json:"cron"`
	TimeZone       string `json:"time_zone"`
	Overlap        string `json:"overlap"`
	StartDeadlineS int64  `json:"start_deadline_s"`
	Suspended      bool   `json:"suspended"`
	// SuspendedWhy is why Kashi suspended it: owner-missing, owner-disabled or owner-left;
	// absent when a lead did, or it runs.
	SuspendedWhy string      `json:"suspended_why,omitempty"`
	Owner        string      `json:"owner"`
	CreatedAt    time.Time   `json:"created_at"`
	Next         []time.Time `json:"next"`
	Runs         []runJSON   `json:"runs"`
}

// runJSON is one run of a schedule and its outcome.
type runJSON struct {
	PlannedAt       time.Time `json:"planned_at"`
	Outcome         string    `json:"outcome"`
	Detail          string    `json:"detail"`
	TemplateVersion int       `json:"template_version"`
	TaskID          *int64    `json:"task_id"`
	TaskState       string    `json:"task_state"`
	// PipelineID is the pipeline a pipeline template's run submitted.
	PipelineID *int64 `json:"pipeline_id,omitempty"`
}

// toTemplateJSON is a template with its uses.
func toTemplateJSON(t models.TaskTemplate, uses int64) templateJSON {
	return templateJSON{ID: t.ID, ProjectID: t.ProjectID, Name: t.Name, Description: t.Description, Version: t.Version,
		TemplateBody: sameJSON[api.TemplateBody](t.Fields()), CreatedBy: t.CreatedBy, CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt, Uses: uses}
}

// toVersionJSON is a stored version.
func toVersionJSON(v models.TaskTemplateVersion) versionJSON {
	return versionJSON{Version: v.Version, By: v.By, At: v.At, Description: v.Description, Changes: v.Changes(), Body: sameJSON[api.TemplateBody](v.Fields()),
		Restores: v.Restores}
}

// toScheduleJSON is a schedule with its next five runs after now and its runs.
func toScheduleJSON(ts models.TaskSchedule, runs []models.ScheduleRunRow, now time.Time) scheduleJSON {
	out := scheduleJSON{ID: ts.ID, TemplateID: ts.TemplateID, Cron: ts.Cron, TimeZone: ts.TimeZone, Overlap: ts.Overlap,
		StartDeadlineS: ts.StartDeadlineS, Suspended: ts.Suspended, SuspendedWhy: ts.SuspendedWhy, Owner: ts.Owner, CreatedAt: ts.CreatedAt,
		Next: []time.Time{}, Runs: []runJSON{}}
	if s, err := schedule.Parse(ts.Cron, ts.TimeZone); err == nil && !ts.Suspended {
		out.Next = s.Next(now, 5)
	}
	for _, r := range runs {
		out.Runs = append(out.Runs, runJSON{PlannedAt: r.PlannedAt, Outcome: r.Outcome, Detail: r.Detail,
			TemplateVersion: r.TemplateVersion, TaskID: r.TaskID, TaskState: r.TaskState, PipelineID: r.PipelineID})
	}
	return out
}
