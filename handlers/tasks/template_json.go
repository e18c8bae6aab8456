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

// newTemplateRequest is a request with the API's defaults: the long lane, normal priority.
func newTemplateRequest() api.TemplateRequest {
	return api.TemplateRequest{TemplateBody: api.TemplateBody{Queue: models.QueueLong, Priority: models.PriorityNormal}}
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

// toTemplateJSON is a template with its uses.
func toTemplateJSON(t models.TaskTemplate, uses int64) api.Template {
	return api.Template{ID: t.ID, ProjectID: t.ProjectID, Name: t.Name, Description: t.Description, Version: t.Version,
		TemplateBody: sameJSON[api.TemplateBody](t.Fields()), CreatedBy: t.CreatedBy, CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt, Uses: uses}
}

// toVersionJSON is a stored version.
func toVersionJSON(v models.TaskTemplateVersion) api.TemplateVersion {
	return api.TemplateVersion{Version: v.Version, By: v.By, At: v.At, Description: v.Description, Changes: sameJSON[[]api.FieldChange](v.Changes()), Body: sameJSON[api.TemplateBody](v.Fields()),
		Restores: v.Restores}
}

// toScheduleJSON is a schedule with its next five runs after now and its runs.
func toScheduleJSON(ts models.TaskSchedule, runs []models.ScheduleRunRow, now time.Time) api.Schedule {
	out := api.Schedule{ID: ts.ID, TemplateID: ts.TemplateID, Cron: ts.Cron, TimeZone: ts.TimeZone, Overlap: ts.Overlap,
		StartDeadlineS: ts.StartDeadlineS, Suspended: ts.Suspended, SuspendedWhy: ts.SuspendedWhy, Owner: ts.Owner, CreatedAt: ts.CreatedAt,
		Next: []time.Time{}, Runs: []api.ScheduleRun{}}
	if s, err := schedule.Parse(ts.Cron, ts.TimeZone); err == nil && !ts.Suspended {
		out.Next = s.Next(now, 5)
	}
	for _, r := range runs {
		out.Runs = append(out.Runs, api.ScheduleRun{PlannedAt: r.PlannedAt, Outcome: r.Outcome, Detail: r.Detail,
			TemplateVersion: r.TemplateVersion, TaskID: r.TaskID, TaskState: r.TaskState, PipelineID: r.PipelineID})
	}
	return out
}
