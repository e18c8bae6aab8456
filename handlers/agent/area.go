// Package agent serves the node agents' API: registration, samples, assignments and task status,
// each request authenticated by the node's own token.
//
// Each action is one file (parse, call, render); the area reads the store through its own
// Store interface and shares only package handlers with the other areas.
package agent

import (
	"context"
	"time"

	"kashi/handlers"
	"kashi/models"
)

// Handler serves the node agents' API.
type Handler struct {
	*handlers.Core
	store Store
}

// Store is what Agent needs of models.Store.
type Store interface {
	ConfirmRunning(ctx context.Context, nodeID int64, ids []int64, now time.Time) error
	AppendTaskLogs(ctx context.Context, nodeID int64, pieces []models.LogPiece, now time.Time) error
	AddServiceReports(ctx context.Context, nodeID int64, reports []models.ServiceReport, now time.Time) error
	CreateJoinToken(ctx context.Context, actor, machineID string, nodeID int64, now time.Time) (string, models.JoinToken, error)
	RevokeSharedJoinToken(ctx context.Context, actor string, now time.Time) error
	SharedJoinTokenRevoked(ctx context.Context) (bool, error)
	RegisterNode(ctx context.Context, req models.NodeRegistration, tokenHash string, now time.Time) (models.Node, error)
	PrePullImages(ctx context.Context, poolID int64) ([]string, error)
	NodeByTokenHash(ctx context.Context, hash string) (models.Node, error)
	IngestSamples(ctx context.Context, nodeID int64, samples []models.Reading, now time.Time) (models.IngestResult, error)
	Assignments(ctx context.Context, nodeID int64) ([]models.Assignment, error)
	WaitAssignments(ctx context.Context, nodeID int64) (*models.AssignmentWait, error)
	AssignmentsChangedAt(ctx context.Context, nodeID int64) (time.Time, error)
	ReportTaskStatus(ctx context.Context, nodeID, taskID int64, r models.TaskReport, now time.Time) error
}

// New returns the area over store.
func New(c *handlers.Core, store Store) *Handler { return &Handler{Core: c, store: store} }
