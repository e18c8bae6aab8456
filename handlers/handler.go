// Package handlers holds Kashi's thin HTTP adapters: each parses a request, calls models,
// scheduler or billing, and renders a view or JSON.
package handlers

import (
	"context"
	"time"

	"kashi/billing"
	"kashi/models"
	"kashi/scheduler"
)

// Store is what the handlers need of models.Store.
type Store interface {
	Ping(ctx context.Context) error
	Thresholds() models.Thresholds
	RegisterNode(ctx context.Context, req models.NodeRegistration, tokenHash string, now time.Time) (models.Node, error)
	NodeByTokenHash(ctx context.Context, hash string) (models.Node, error)
	IngestSamples(ctx context.Context, nodeID int64, samples []models.Reading, now time.Time) (models.IngestResult, error)
	BoardGPUs(ctx context.Context, f models.BoardFilter) ([]models.BoardGPU, error)
	BoardOptions(ctx context.Context) (pools, specs, projects []string, err error)
	CreateTask(ctx context.Context, nt models.NewTask, lim models.TaskLimits, now time.Time) (models.Task, bool, error)
	ValidateTask(ctx context.Context, nt models.NewTask, lim models.TaskLimits) error
	ActiveTasks(ctx context.Context) ([]models.TaskRow, error)
	Projects(ctx context.Context) ([]models.Project, error)
	NodeNames(ctx context.Context) (map[int64]string, error)
	TaskByID(ctx context.Context, id int64) (models.TaskRow, error)
	TaskEvents(ctx context.Context, id int64) ([]models.TaskEvent, error)
	Tasks(ctx context.Context, f models.TaskFilter) ([]models.TaskRow, error)
	CancelTask(ctx context.Context, id int64, by string, now time.Time) error
	MarkTaskReady(ctx context.Context, id int64, reason string, now time.Time) error
	Assignments(ctx context.Context, nodeID int64) ([]models.Assignment, error)
	ConfirmRunning(ctx context.Context, nodeID int64, ids []int64, now time.Time) error
	RecordUnmanaged(ctx context.Context, nodeID int64, readings []models.Reading, now time.Time) error
	AppendTaskLogs(ctx context.Context, nodeID int64, pieces []models.LogPiece, now time.Time) error
	TaskLogTail(ctx context.Context, taskID int64) (models.TaskLog, error)
	ReportTaskStatus(ctx context.Context, nodeID, taskID int64, r models.TaskReport, now time.Time) error

	Authenticate(ctx context.Context, name, password string) (models.User, error)
	CreateSession(ctx context.Context, userID int64, lim models.SessionLimits, now time.Time) (string, error)
	SessionUser(ctx context.Context, token string, lim models.SessionLimits, now time.Time) (models.User, error)
	DeleteSession(ctx context.Context, token string) error
	TokenUser(ctx context.Context, token string, now time.Time) (models.User, models.APIToken, error)
	Memberships(ctx context.Context, userID int64) (map[int64]string, error)
	ProjectByName(ctx context.Context, name string) (models.Project, error)
	UserByName(ctx context.Context, name string) (models.User, error)
	SetProjectTags(ctx context.Context, actor string, projectID int64, tags []string, now time.Time) error
	CreateUser(ctx context.Context, name, password, role string, now time.Time) (models.User, error)
	SetMember(ctx context.Context, projectID, userID int64, role string) error
	Quotas(ctx context.Context, projectID int64) ([]models.Quota, error)
	SetQuota(ctx context.Context, actor string, q models.Quota, now time.Time) (models.Quota, error)
	UsageSeconds(ctx context.Context, since, now time.Time) (map[int64]map[string]int64, error)
	CreateQuotaRequest(ctx context.Context, by models.User, projectID int64, spec, kind string, c models.QuotaChange, reason string, now time.Time) (models.QuotaRequest, error)
	DecideQuotaRequest(ctx context.Context, by models.User, id int64, approve bool, comment string, now time.Time) (models.QuotaRequest, error)
	QuotaRequests(ctx context.Context, projectIDs []int64, state string) ([]models.QuotaRequestRow, error)
	AuditLog(ctx context.Context, f models.AuditFilter) ([]models.AuditEntry, error)
	APITokens(ctx context.Context, userID int64) ([]models.APIToken, error)
	CreateAPIToken(ctx context.Context, userID int64, name, scope string, now time.Time) (string, models.APIToken, error)
	RevokeAPIToken(ctx context.Context, userID, id int64, now time.Time) error
	Notifications(ctx context.Context, userID int64, limit int) ([]models.Notification, error)
	MarkNotificationsRead(ctx context.Context, userID int64, now time.Time) error
	Audit(ctx context.Context, at time.Time, actor, action string, projectID *int64, subject string, before, after any) error

	// Pools, scaling, alerts and idle reclaim.
	Nodes(ctx context.Context) ([]models.NodeGPUs, error)
	ConfiguredPools(ctx context.Context) ([]models.ConfiguredPool, error)
	PoolScaleStates(ctx context.Context) (map[int64]models.PoolScaleState, error)
	Machines(ctx context.Context, poolID int64) ([]models.Machine, error)
	ScalingEvents(ctx context.Context, poolID int64, limit int) ([]models.ScalingEvent, error)
	PoolSizes(ctx context.Context, poolID int64, from, to time.Time) ([]models.PoolSizeSample, error)
	SavePoolConfig(ctx context.Context, name string, cfg models.PoolConfig, by, note string, now time.Time) (models.ConfiguredPool, error)
	PoolConfigVersions(ctx context.Context, name string) ([]models.PoolPolicyVersion, error)
	RollBackPoolConfig(ctx context.Context, name string, version int, by string, now time.Time) (models.ConfiguredPool, error)
	Alerts(ctx context.Context, f models.AlertFilter) ([]models.Alert, error)
	KeepTask(ctx context.Context, taskID int64, by string, keepFor time.Duration, maxPerDay int, loc *time.Location, now time.Time) (time.Time, error)
	ReclaimTask(ctx context.Context, taskID int64, reason string, now time.Time) error
	ReclaimNotices(ctx context.Context, owner string) ([]models.ReclaimNotice, error)

	// Bills: the ledger as billing reads it and freezes bills, prices, plans, adjustments.
	billing.Issuer
	SetPrice(ctx context.Context, p models.Price, now time.Time) error
	SetBillingPlan(ctx context.Context, p models.BillingPlan, now time.Time) error
	AddAdjustment(ctx context.Context, a models.Adjustment, now time.Time) (models.Adjustment, error)
}

// Scheduler is what the handlers need of the scheduler loop: a wake-up after a change, and
// the queue as it would decide it now (read-only).
type Scheduler interface {
	Trigger()
	Queue(ctx context.Context, now time.Time) (scheduler.QueueView, error)
}

// Config holds the settings handlers use.
type Config struct {
	// JoinToken lets agents register; empty disables registration.
	JoinToken string
	// IdleAfter and SaturatedAfter are when a held-idle or saturated card stands out.
	IdleAfter      time.Duration
	SaturatedAfter time.Duration
	// StaleAfter is when a card that has not reported is shown as stale.
	StaleAfter time.Duration
	// TaskLimits bound submitted tasks.
	TaskLimits models.TaskLimits
	// Sessions bound a login's life.
	Sessions models.SessionLimits
	// SecureCookies marks cookies Secure (the public URL is https).
	SecureCookies bool
	// Demo shows the demo users on the login page.
	Demo bool
	// Location is the billing time zone: months (budgets, bills) begin there.
	Location *time.Location
	// ScaleTrigger wakes the scaling loop after a pool's configuration changed (the
	// scheduler.Scaler's Trigger); nil means nothing is woken.
	ScaleTrigger func()
	// Reclaim is the idle-reclaim policy the scaling loop runs: how long a "keep" answer
	// holds the cards and how many keeps a day allows. Zero fields take the defaults.
	Reclaim scheduler.ReclaimPolicy
}

// Handler serves every route. Build it with New.
type Handler struct {
	store Store
	sched Scheduler
	cfg   Config
	now   func() time.Time
}

// New returns a Handler. now is the clock (the demo's runs fast).
func New(store Store, sched Scheduler, cfg Config, now func() time.Time) *Handler {
	return &Handler{store: store, sched: sched, cfg: cfg, now: now}
}
