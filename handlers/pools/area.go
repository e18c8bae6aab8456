// Package pools serves pools and their scaling settings with versions and rollback, calibration
// from replays, and the fleet's alerts.
//
// Each action is one file (parse, call, render); the area reads the store through its own
// Store interface and shares only package handlers with the other areas.
package pools

import (
	"context"
	"time"

	"kashi/handlers"
	"kashi/models"
	"kashi/pilot"
	"kashi/replay"
)

// Handler serves pools and their scaling settings, and the fleet's alerts.
type Handler struct {
	*handlers.Core
	store Store
	// calib runs this server's calibrations and keeps them a while (calibrate.go).
	calib *replay.Runner
	// changes measures changes in the background, once per period (pool_change.go); the
	// server's one cache, which the bills area's pages read too (Changes).
	changes *pilot.ChangeCache
}

// Store is what Pools needs of models.Store.
type Store interface {
	Prices(ctx context.Context, month string) ([]models.Price, error)
	TaskSpans(ctx context.Context, since, until time.Time) ([]models.TaskSpan, error)
	Audit(ctx context.Context, at time.Time, actor, action string, projectID *int64, subject string, before, after any) error
	ConfiguredPools(ctx context.Context) ([]models.ConfiguredPool, error)
	PoolOverviews(ctx context.Context, events int) ([]models.PoolOverview, error)
	PoolSizes(ctx context.Context, poolID int64, from, to time.Time) ([]models.PoolSizeSample, error)
	LatestPoolSizes(ctx context.Context) (map[int64]models.PoolSizeSample, error)
	SavePoolConfig(ctx context.Context, name string, cfg models.PoolConfig, by, note string, now time.Time) (models.ConfiguredPool, error)
	PoolConfigVersions(ctx context.Context, name string) ([]models.PoolPolicyVersion, error)
	RollBackPoolConfig(ctx context.Context, name string, version int, by string, now time.Time) (models.ConfiguredPool, error)
	ResumePool(ctx context.Context, name string, now time.Time) (models.PoolScaleState, error)
	Alerts(ctx context.Context, f models.AlertFilter) ([]models.Alert, error)
	// The alerts page's groups and acknowledgements.
	AckAlerts(ctx context.Context, ids []int64, by string, now time.Time) (int, error)
	NodeNames(ctx context.Context) (map[int64]string, error)
	TaskByID(ctx context.Context, id int64) (models.TaskRow, error)
	// Reservations drawn on the pools chart.
	Reservations(ctx context.Context, from, to time.Time) ([]models.ReservationRow, error)
	// The join tokens page.
	ActiveJoinTokens(ctx context.Context) ([]models.JoinTokenRow, error)
	JoinTokenNodes(ctx context.Context) ([]models.JoinTokenNode, error)
	CreateJoinToken(ctx context.Context, actor, machineID string, nodeID int64, now time.Time) (string, models.JoinToken, error)
	RevokeJoinToken(ctx context.Context, actor string, id int64, now time.Time) error
	RevokeSharedJoinToken(ctx context.Context, actor string, now time.Time) error
	SharedJoinTokenRevoked(ctx context.Context) (bool, error)
	// The archive page.
	ArchiveQueue(ctx context.Context, limit int) (models.ArchiveOutbox, error)
	// The pilot review and the changes' measures: billing's ledger, the tasks and the
	// scaling events of a period, the price list.
	pilot.ChangeSource
}

// New returns the area over store.
func New(c *handlers.Core, store Store) *Handler {
	return &Handler{Core: c, store: store, calib: newCalibrations(), changes: pilot.NewChangeCache(pilot.KeptChanges)}
}

// Changes is the server's cache of changes' measures, for the areas that show changes
// too (bills: prices and the weekly report; projects: quotas), so that a change is
// measured once.
func (h *Handler) Changes() *pilot.ChangeCache { return h.changes }
