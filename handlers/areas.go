package handlers

import (
	"context"
	"time"

	"kashi/billing"
	"kashi/models"
)

// Board serves the occupancy board and GET /api/v1/gpus.
type Board struct {
	*core
	store BoardStore
}

// BoardStore is what Board needs of models.Store.
type BoardStore interface {
	BoardGPUs(ctx context.Context, f models.BoardFilter) ([]models.BoardGPU, error)
	BoardOptions(ctx context.Context) (pools, specs, projects []string, err error)
	// The compact board's strips and the active threshold; the GPU and node pages.
	UtilStrips(ctx context.Context, now time.Time) (map[int64]models.UtilStrip, error)
	Thresholds() models.Thresholds
	GPUByUUID(ctx context.Context, uuid string) (models.GPUPlace, error)
	NodePlace(ctx context.Context, id int64) (models.NodePlace, error)
	GPUHistory(ctx context.Context, gpuIDs []int64, resolution int, from, to time.Time) ([]models.GPURollup, error)
	HeldBy(ctx context.Context, gpuIDs []int64, from, to time.Time) ([]models.Holding, error)
	// Reservations holding cards, marked on the board.
	Reservations(ctx context.Context, from, to time.Time) ([]models.ReservationRow, error)
	ConfiguredPools(ctx context.Context) ([]models.ConfiguredPool, error)
}

// Tasks serves tasks, the queue, and the notifications that ask about tasks (keep or release).
type Tasks struct {
	*core
	store TasksStore
}

// TasksStore is what Tasks needs of models.Store.
type TasksStore interface {
	TaskLogTail(ctx context.Context, taskID int64) (models.TaskLog, error)
	CreateTask(ctx context.Context, nt models.NewTask, lim models.TaskLimits, now time.Time) (models.Task, bool, error)
	ValidateTask(ctx context.Context, nt models.NewTask, lim models.TaskLimits) error
	// The dry run's prices, plans, quotas and use.
	Prices(ctx context.Context, month string) ([]models.Price, error)
	BillingPlans(ctx context.Context, month string) ([]models.BillingPlan, error)
	Quotas(ctx context.Context, projectID int64) ([]models.Quota, error)
	UsageSeconds(ctx context.Context, since, now time.Time) (map[int64]map[string]int64, error)
	ActiveTasks(ctx context.Context) ([]models.TaskRow, error)
	BoardGPUs(ctx context.Context, f models.BoardFilter) ([]models.BoardGPU, error)
	Projects(ctx context.Context) ([]models.Project, error)
	NodeNames(ctx context.Context) (map[int64]string, error)
	TaskByID(ctx context.Context, id int64) (models.TaskRow, error)
	TaskEvents(ctx context.Context, id int64) ([]models.TaskEvent, error)
	Tasks(ctx context.Context, f models.TaskFilter) ([]models.TaskRow, error)
	CancelTask(ctx context.Context, id int64, by string, now time.Time) error
	MarkTaskReady(ctx context.Context, id int64, reason string, now time.Time) error
	ProjectByName(ctx context.Context, name string) (models.Project, error)
	Notifications(ctx context.Context, userID int64, limit int) ([]models.Notification, error)
	NoteProjects(ctx context.Context, notes []models.Notification) (map[int64]string, error)
	MarkNotificationsRead(ctx context.Context, userID int64, now time.Time) error
	Audit(ctx context.Context, at time.Time, actor, action string, projectID *int64, subject string, before, after any) error
	KeepTask(ctx context.Context, taskID int64, by string, keepFor time.Duration, maxPerDay int, loc *time.Location, now time.Time) (time.Time, error)
	ReclaimTask(ctx context.Context, taskID int64, reason string, now time.Time) error
	ReclaimNotices(ctx context.Context, owner string) ([]models.ReclaimNotice, error)
	TaskReclaimSettings(ctx context.Context, taskID int64) (models.ReclaimSettings, error)
	TaskCards(ctx context.Context, taskID int64) ([]models.TaskCard, error)
	SpecMemory(ctx context.Context) (map[string]int64, error)
	BoardOptions(ctx context.Context) (pools, specs, projects []string, err error)
	Rollups(ctx context.Context, gpuID int64, resolution int, from, to time.Time) ([]models.GPURollup, error)
	TemplateByID(ctx context.Context, id int64) (models.TaskTemplate, error)
	ProjectByID(ctx context.Context, id int64) (models.Project, error)
	PoolRegions(ctx context.Context) ([]string, error)
}

// Templates serves a project's task templates, their versions and schedules.
type Templates struct {
	*core
	store TemplatesStore
}

// TemplatesStore is what Templates needs of models.Store.
type TemplatesStore interface {
	ProjectByID(ctx context.Context, id int64) (models.Project, error)
	CreateTemplate(ctx context.Context, nt models.NewTemplate, by string, lim models.TaskLimits, now time.Time) (models.TaskTemplate, error)
	UpdateTemplate(ctx context.Context, id int64, nt models.NewTemplate, by string, lim models.TaskLimits, now time.Time) (models.TaskTemplate, error)
	TemplateByID(ctx context.Context, id int64) (models.TaskTemplate, error)
	TemplateVersions(ctx context.Context, id int64) ([]models.TaskTemplateVersion, error)
	Templates(ctx context.Context, projectID int64) ([]models.TemplateRow, error)
	TemplateUses(ctx context.Context, id int64) (int64, error)
	CreateSchedule(ctx context.Context, ts models.TaskSchedule, now time.Time) (models.TaskSchedule, error)
	ScheduleByID(ctx context.Context, id int64) (models.TaskSchedule, error)
	Schedules(ctx context.Context, templateID int64) ([]models.TaskSchedule, error)
	SetScheduleSuspended(ctx context.Context, id int64, suspended bool, now time.Time) error
	ScheduleRuns(ctx context.Context, scheduleID int64, limit int) ([]models.ScheduleRunRow, error)
	BoardOptions(ctx context.Context) (pools, specs, projects []string, err error)
	PoolRegions(ctx context.Context) ([]string, error)
	// Rightsizing advice from the template's latest runs.
	TemplateRuns(ctx context.Context, id int64, limit int) ([]models.Task, error)
	TaskCards(ctx context.Context, taskID int64) ([]models.TaskCard, error)
	Rollups(ctx context.Context, gpuID int64, resolution int, from, to time.Time) ([]models.GPURollup, error)
	SpecMemory(ctx context.Context) (map[string]int64, error)
	Prices(ctx context.Context, month string) ([]models.Price, error)
}

// Projects serves projects, their members and tags, quotas, quota requests and approvals.
type Projects struct {
	*core
	store ProjectsStore
}

// ProjectsStore is what Projects needs of models.Store.
type ProjectsStore interface {
	Projects(ctx context.Context) ([]models.Project, error)
	Memberships(ctx context.Context, userID int64) (map[int64]string, error)
	ProjectByName(ctx context.Context, name string) (models.Project, error)
	UserByName(ctx context.Context, name string) (models.User, error)
	SetProjectTags(ctx context.Context, actor string, projectID int64, tags []string, now time.Time) error
	SetReclaimOverride(ctx context.Context, actor string, projectID int64, o models.ReclaimOverride, now time.Time) error
	SetMember(ctx context.Context, projectID, userID int64, role string) error
	Quotas(ctx context.Context, projectID int64) ([]models.Quota, error)
	SetQuota(ctx context.Context, actor string, q models.Quota, now time.Time) (models.Quota, error)
	UsageSeconds(ctx context.Context, since, now time.Time) (map[int64]map[string]int64, error)
	BoardGPUs(ctx context.Context, f models.BoardFilter) ([]models.BoardGPU, error)
	CreateQuotaRequest(ctx context.Context, by models.User, projectID int64, spec, kind string, c models.QuotaChange, reason string, now time.Time) (models.QuotaRequest, error)
	DecideQuotaRequest(ctx context.Context, by models.User, id int64, approve bool, comment string, now time.Time) (models.QuotaRequest, error)
	QuotaRequests(ctx context.Context, projectIDs []int64, state string) ([]models.QuotaRequestRow, error)
	Audit(ctx context.Context, at time.Time, actor, action string, projectID *int64, subject string, before, after any) error
	// Projects and members in the browser, approvals with context.
	CreateProject(ctx context.Context, actor, name string, tags []string, now time.Time) (models.Project, error)
	SetProjectArchived(ctx context.Context, actor string, projectID int64, archived bool, now time.Time) error
	ProjectMembers(ctx context.Context, projectID int64) ([]models.MemberRow, error)
	Users(ctx context.Context) ([]models.User, error)
	BoardOptions(ctx context.Context) (pools, specs, projects []string, err error)
	Prices(ctx context.Context, month string) ([]models.Price, error)
	Tasks(ctx context.Context, f models.TaskFilter) ([]models.TaskRow, error)
	ActiveTasks(ctx context.Context) ([]models.TaskRow, error)
	// Advance reservations.
	Reservations(ctx context.Context, from, to time.Time) ([]models.ReservationRow, error)
	CancelReservation(ctx context.Context, by models.User, id int64, now time.Time) (models.Reservation, error)
	// The pools a reservation in a region chooses its spec from, and their regions.
	ConfiguredPools(ctx context.Context) ([]models.ConfiguredPool, error)
	PoolRegions(ctx context.Context) ([]string, error)
}

// Pools serves pools and their scaling settings, and the fleet's alerts.
type Pools struct {
	*core
	store PoolsStore
	// calib holds the calibrations this server ran (calibrate.go).
	calib *calibrations
}

// PoolsStore is what Pools needs of models.Store.
type PoolsStore interface {
	Prices(ctx context.Context, month string) ([]models.Price, error)
	TaskSpans(ctx context.Context, since, until time.Time) ([]models.TaskSpan, error)
	Audit(ctx context.Context, at time.Time, actor, action string, projectID *int64, subject string, before, after any) error
	ConfiguredPools(ctx context.Context) ([]models.ConfiguredPool, error)
	PoolOverviews(ctx context.Context, events int) ([]models.PoolOverview, error)
	PoolSizes(ctx context.Context, poolID int64, from, to time.Time) ([]models.PoolSizeSample, error)
	SavePoolConfig(ctx context.Context, name string, cfg models.PoolConfig, by, note string, now time.Time) (models.ConfiguredPool, error)
	PoolConfigVersions(ctx context.Context, name string) ([]models.PoolPolicyVersion, error)
	RollBackPoolConfig(ctx context.Context, name string, version int, by string, now time.Time) (models.ConfiguredPool, error)
	Alerts(ctx context.Context, f models.AlertFilter) ([]models.Alert, error)
	// The alerts page's groups and acknowledgements.
	AckAlerts(ctx context.Context, ids []int64, by string, now time.Time) (int, error)
	NodeNames(ctx context.Context) (map[int64]string, error)
	TaskByID(ctx context.Context, id int64) (models.TaskRow, error)
	// Reservations drawn on the pools chart.
	Reservations(ctx context.Context, from, to time.Time) ([]models.ReservationRow, error)
}

// Bills serves bills, prices, billing plans, adjustments and weekly reports.
type Bills struct {
	*core
	store BillsStore
}

// BillsStore is what Bills needs of models.Store.
type BillsStore interface {
	billing.Issuer
	SetBillingSettings(ctx context.Context, actor string, bs models.BillingSettings, now time.Time) error
	Projects(ctx context.Context) ([]models.Project, error)
	ProjectByName(ctx context.Context, name string) (models.Project, error)
	Audit(ctx context.Context, at time.Time, actor, action string, projectID *int64, subject string, before, after any) error
	SetPrice(ctx context.Context, p models.Price, now time.Time) error
	SetBillingPlan(ctx context.Context, p models.BillingPlan, now time.Time) error
	AddAdjustment(ctx context.Context, a models.Adjustment, now time.Time) (models.Adjustment, error)
	// The prices page.
	PriceHistory(ctx context.Context) ([]models.Price, error)
	BillingPlanHistory(ctx context.Context) ([]models.BillingPlan, error)
	BoardOptions(ctx context.Context) (pools, specs, projects []string, err error)
	LastHeldBefore(ctx context.Context, projectIDs []int64, cut time.Time) (time.Time, bool, error)
}

// Agent serves the node agents' API.
type Agent struct {
	*core
	store AgentStore
}

// AgentStore is what Agent needs of models.Store.
type AgentStore interface {
	ConfirmRunning(ctx context.Context, nodeID int64, ids []int64, now time.Time) error
	AppendTaskLogs(ctx context.Context, nodeID int64, pieces []models.LogPiece, now time.Time) error
	AddServiceReports(ctx context.Context, nodeID int64, reports []models.ServiceReport, now time.Time) error
	CreateJoinToken(ctx context.Context, actor, machineID string, now time.Time) (string, models.JoinToken, error)
	RevokeSharedJoinToken(ctx context.Context, actor string, now time.Time) error
	SharedJoinTokenRevoked(ctx context.Context) (bool, error)
	RegisterNode(ctx context.Context, req models.NodeRegistration, tokenHash string, now time.Time) (models.Node, error)
	PrePullImages(ctx context.Context, poolID int64) ([]string, error)
	NodeByTokenHash(ctx context.Context, hash string) (models.Node, error)
	IngestSamples(ctx context.Context, nodeID int64, samples []models.Reading, now time.Time) (models.IngestResult, error)
	Assignments(ctx context.Context, nodeID int64) ([]models.Assignment, error)
	ReportTaskStatus(ctx context.Context, nodeID, taskID int64, r models.TaskReport, now time.Time) error
}

// Services serves the Models page: inference services' traffic, latency and cost.
type Services struct {
	*core
	store ServicesStore
}

// ServicesStore is what Services needs of models.Store.
type ServicesStore interface {
	ServiceUses(ctx context.Context, from, to time.Time) ([]models.ServiceUse, error)
	Prices(ctx context.Context, month string) ([]models.Price, error)
}

// People serves logins, sessions and tokens, users, the audit log, language and health.
type People struct {
	*core
	store PeopleStore
	// logins throttles failed logins (login_throttle.go).
	logins *loginThrottle
}

// PeopleStore is what People needs of models.Store.
type PeopleStore interface {
	Ping(ctx context.Context) error
	Authenticate(ctx context.Context, name, password string) (models.User, error)
	CreateSession(ctx context.Context, userID int64, lim models.SessionLimits, now time.Time) (string, error)
	SessionUser(ctx context.Context, token string, lim models.SessionLimits, now time.Time) (models.User, error)
	DeleteSession(ctx context.Context, token string) error
	TokenUser(ctx context.Context, token string, now time.Time) (models.User, models.APIToken, error)
	Memberships(ctx context.Context, userID int64) (map[int64]string, error)
	CreateUser(ctx context.Context, name, password, role string, now time.Time) (models.User, error)
	AuditLog(ctx context.Context, f models.AuditFilter) ([]models.AuditEntry, error)
	APITokens(ctx context.Context, userID int64) ([]models.APIToken, error)
	CreateAPIToken(ctx context.Context, userID int64, name, scope string, now time.Time) (string, models.APIToken, error)
	RevokeAPIToken(ctx context.Context, userID, id int64, now time.Time) error
	UnreadNotifications(ctx context.Context, userID int64) (int, error)
	Audit(ctx context.Context, at time.Time, actor, action string, projectID *int64, subject string, before, after any) error
	// The people and account pages.
	Users(ctx context.Context) ([]models.User, error)
	SetUserDisabled(ctx context.Context, actor, name string, disabled bool, now time.Time) error
	ResetPassword(ctx context.Context, actor, name, password string, now time.Time) error
	ChangePassword(ctx context.Context, userID int64, current, next string, now time.Time) error
	// The approvals' count in the navigation, the audit page's filters.
	PendingRequests(ctx context.Context, projectIDs []int64) (int, error)
	AuditActions(ctx context.Context, projectIDs []int64) ([]string, error)
	Projects(ctx context.Context) ([]models.Project, error)
	ProjectByName(ctx context.Context, name string) (models.Project, error)
}
