// Package board serves the occupancy board, the GPU and node pages with their history, and GET
// /api/v1/gpus.
//
// Each action is one file (parse, call, render); the area reads the store through its own
// Store interface and shares only package handlers with the other areas.
package board

import (
	"context"
	"time"

	"kashi/handlers"
	"kashi/models"
)

// Handler serves the occupancy board and GET /api/v1/gpus.
type Handler struct {
	*handlers.Core
	store Store
	share *boardShare
}

// Store is what Board needs of models.Store.
type Store interface {
	BoardGPUs(ctx context.Context, f models.BoardFilter) ([]models.BoardGPU, error)
	BoardOptions(ctx context.Context) (pools, specs, projects []string, err error)
	// BoardVersion changes when what the board shows may have changed; BoardLag is how far
	// behind that the board may be shown.
	BoardVersion() uint64
	BoardLag() time.Duration
	// The compact board's strips and the active threshold; the GPU and node pages.
	UtilStrips(ctx context.Context, now time.Time) (map[int64]models.UtilStrip, error)
	Thresholds() models.Thresholds
	GPUByID(ctx context.Context, id int64) (models.GPUPlace, error)
	GPUByUUID(ctx context.Context, uuid string) (models.GPUPlace, error)
	NodePlace(ctx context.Context, id int64) (models.NodePlace, error)
	GPUHistory(ctx context.Context, gpuIDs []int64, resolution int, from, to time.Time) ([]models.GPURollup, error)
	HeldBy(ctx context.Context, gpuIDs []int64, from, to time.Time) ([]models.Holding, error)
	// The windows of the reservations the scheduler holds cards for, marked on the board.
	Reservations(ctx context.Context, from, to time.Time) ([]models.ReservationRow, error)
}

// New returns the area over store.
func New(c *handlers.Core, store Store) *Handler {
	return &Handler{Core: c, store: store, share: newBoardShare(c.Cfg.BoardShare)}
}
