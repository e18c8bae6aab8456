// Package tasks serves tasks and the queue, the submit form and its dry run, task templates with
// their versions and schedules, and the notifications that ask about a task (keep or release).
//
// Each action is one file (parse, call, render); the area reads the store through its own
// Store interface and shares only package handlers with the other areas.
package tasks

import (
	"context"
	"time"

	"kashi/billing"
	"kashi/handlers"
	"kashi/models"
)

// Handler serves tasks, the queue, the task templates with their versions and schedules, and
// the notifications that ask about tasks (keep or release).
type Handler struct {
	*handlers.Core
	store Store
}

// Store is what Tasks needs of models.Store.
type Store interface {
	TaskLogTail(ctx context.Context, taskID int64) (models.TaskLog, error)
	CreateTask(ctx context.Context, nt models.NewTask, lim models.TaskLimits, now time.Time) (models.Task, bool, error)
	ValidateTask(ctx context.Context, nt models.NewTask, lim models.TaskLimits) error
	// DataRoots are where path data checks may look; none when the server checks no paths.
	DataRoots() []string
	// The dry run's prices, plans, quotas and use.
	Prices(ctx context.Context, month string) ([]models.Price, error)
	BillingPlans(ctx context.Context, month string) ([]models.BillingPlan, error)
	Quotas(ctx context.Context, projectID int64) ([]models.Quota, error)
	UsageSeconds(ctx context.Context, since, now time.Time) (map[int64]map[string]int64, error)
	ActiveTasks(ctx context.Context) ([]models.TaskRow, error)
	Projects(ctx context.Context) ([]models.Project, error)
	NodeNames(ctx context.Context) (map[int64]string, error)
	TaskByID(ctx context.Context, id int64) (models.TaskRow, error)
	TaskEvents(ctx context.Context, id int64) ([]models.TaskEvent, error)
	TaskAttempts(ctx context.Context, id int64) ([]models.AttemptRow, error)
	Tasks(ctx context.Context, f models.TaskFilter) ([]models.TaskRow, error)
	UserByName(ctx context.Context, name string) (models.User, error)
	TaskHosts(ctx context.Context, ids []int64) (map[int64][]string, error)
	CancelTask(ctx context.Context, id int64, by string, now time.Time) error
	MarkTaskReady(ctx context.Context, id int64, reason string, now time.Time) error
	ProjectByName(ctx context.Context, name string) (models.Project, error)
	Notifications(ctx context.Context, userID int64, limit int) ([]models.Notification, error)
	NoteProjects(ctx context.Context, notes []models.Notification) (map[int64]string, error)
	MarkNotificationsRead(ctx context.Context, userID int64, now time.Time) error
	Audit(ctx context.Context, at time.Time, actor, action string, projectID *int64, subject string, before, after any) error
	KeepTask(ctx context.Context, taskID int64, by string, keepFor time.Duration, maxPerDay int, loc *time.Location, now time.Time) (time.Time, error)
	ReleaseTask(ctx context.Context, taskID int64, by string, now time.Time) error
	ReclaimNotices(ctx context.Context, user string) ([]models.ReclaimNotice, error)
	TaskReclaimSettings(ctx context.Context, taskID int64) (models.ReclaimSettings, error)
	TaskCards(ctx context.Context, taskID int64) ([]models.TaskCard, error)
	SpecMemory(ctx context.Context) (map[string]int64, error)
	BoardOptions(ctx context.Context) (pools, specs, projects []string, err error)
	Rollups(ctx context.Context, gpuID int64, resolution int, from, to time.Time) ([]models.GPURollup, error)
	TemplateByID(ctx context.Context, id int64) (models.TaskTemplate, error)
	ProjectByID(ctx context.Context, id int64) (models.Project, error)
	PoolRegions(ctx context.Context) ([]string, error)
	// What a project without a quota may use of each spec, for the submit form.
	ConfiguredPools(ctx context.Context) ([]models.ConfiguredPool, error)
	// Templates, their versions and schedules.
	CreateTemplate(ctx context.Context, nt models.NewTemplate, by string, lim models.TaskLimits, now time.Time) (models.TaskTemplate, error)
	UpdateTemplate(ctx context.Context, id int64, nt models.NewTemplate, by string, lim models.TaskLimits, now time.Time) (models.TaskTemplate, error)
	ValidateTemplate(ctx context.Context, nt models.NewTemplate, by string, lim models.TaskLimits) error
	RollBackTemplate(ctx context.Context, id int64, version int, by string, lim models.TaskLimits, now time.Time) (models.TaskTemplate, bool, error)
	TemplateVersions(ctx context.Context, id int64) ([]models.TaskTemplateVersion, error)
	Templates(ctx context.Context, projectID int64) ([]models.TemplateRow, error)
	TemplateUses(ctx context.Context, id int64) (int64, error)
	CreateSchedule(ctx context.Context, ts models.TaskSchedule, now time.Time) (models.TaskSchedule, error)
	ScheduleByID(ctx context.Context, id int64) (models.TaskSchedule, error)
	Schedules(ctx context.Context, templateID int64) ([]models.TaskSchedule, error)
	SetScheduleSuspended(ctx context.Context, id int64, suspended bool, now time.Time) error
	ScheduleRuns(ctx context.Context, scheduleID int64, limit int) ([]models.ScheduleRunRow, error)
	// Pipelines by stage.
	CreatePipeline(ctx context.Context, np models.NewPipeline, lim models.TaskLimits, now time.Time) (models.Pipeline, error)
	SubmitPipelineTemplate(ctx context.Context, templateID int64, by string, lim models.TaskLimits, now time.Time) (models.Pipeline, error)
	RerunPipeline(ctx context.Context, id int64, lim models.TaskLimits, now time.Time) (models.Pipeline, error)
	CancelPipeline(ctx context.Context, id int64, by string, now time.Time) (models.Pipeline, error)
	PipelineByID(ctx context.Context, id int64) (models.PipelineRow, error)
	Pipelines(ctx context.Context, projectIDs []int64, limit int) ([]models.PipelineRow, error)
	PipelineStages(ctx context.Context, id int64, now time.Time) ([]models.StageRow, error)
	// The bills a pipeline's stages read their card-hours and cost from.
	billing.Source
	// Rightsizing advice from the template's latest runs.
	TemplateRuns(ctx context.Context, id int64, limit int) ([]models.Task, error)
	// Trials: a task tried at small sizes before its full run.
	CreateTrial(ctx context.Context, nt models.NewTrial, lim models.TaskLimits, now time.Time) (models.Trial, []models.Task, error)
	TrialByID(ctx context.Context, id int64) (models.Trial, error)
	TrialRuns(ctx context.Context, id int64) ([]models.TaskRow, error)
	Trials(ctx context.Context, ids []int64, limit int) ([]models.Trial, error)
	TrialsOf(ctx context.Context, ids []int64) (map[int64]models.Trial, error)
	TemplateTrial(ctx context.Context, id int64) (models.Trial, bool, error)
	TaskResubmit(ctx context.Context, id int64) (models.NewTask, error)
	SubmitTrialFull(ctx context.Context, id int64, fr models.FullRun, lim models.TaskLimits, now time.Time) (models.Task, error)
}

// New returns the area over store.
func New(c *handlers.Core, store Store) *Handler { return &Handler{Core: c, store: store} }
