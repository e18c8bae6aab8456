// Package handlers holds Kashi's thin HTTP adapters: each parses a request, calls models,
// scheduler or billing, and renders a view or JSON.
package handlers

import (
	"context"
	"time"

	"kashi/agent/protocol"
	"kashi/models"
)

// Store is what the handlers need of models.Store.
type Store interface {
	Ping(ctx context.Context) error
	Thresholds() models.Thresholds
	RegisterNode(ctx context.Context, req protocol.RegisterRequest, tokenHash string, now time.Time) (models.Node, error)
	NodeByTokenHash(ctx context.Context, hash string) (models.Node, error)
	IngestSamples(ctx context.Context, nodeID int64, samples []protocol.Sample, now time.Time) (models.IngestResult, error)
	BoardGPUs(ctx context.Context, f models.BoardFilter) ([]models.BoardGPU, error)
	BoardOptions(ctx context.Context) (pools, specs, projects []string, err error)
	CreateTask(ctx context.Context, nt models.NewTask, lim models.TaskLimits, now time.Time) (models.Task, bool, error)
	TaskByID(ctx context.Context, id int64) (models.TaskRow, error)
	TaskEvents(ctx context.Context, id int64) ([]models.TaskEvent, error)
	Tasks(ctx context.Context, f models.TaskFilter) ([]models.TaskRow, error)
	CancelTask(ctx context.Context, id int64, by string, now time.Time) error
	MarkTaskReady(ctx context.Context, id int64, reason string, now time.Time) error
	Assignments(ctx context.Context, nodeID int64) ([]protocol.Assignment, error)
	ReportTaskStatus(ctx context.Context, nodeID, taskID int64, r protocol.TaskStatusRequest, now time.Time) error
}

// Scheduler is what the handlers need of the scheduler loop: a wake-up after a change.
type Scheduler interface {
	Trigger()
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
