package handlers

import (
	"context"
	"time"

	"kashi/models"
)

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

// newAgent returns the area over store.
func newAgent(c *core, store AgentStore) *Agent { return &Agent{core: c, store: store} }
