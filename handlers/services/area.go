// Package services serves the Models page and GET /api/v1/services: inference services' traffic,
// latency and cost.
//
// Each action is one file (parse, call, render); the area reads the store through its own
// Store interface and shares only package handlers with the other areas.
package services

import (
	"context"
	"time"

	"kashi/handlers"
	"kashi/models"
)

// Handler serves the Models page: inference services' traffic, latency and cost.
type Handler struct {
	*handlers.Core
	store Store
}

// Store is what Services needs of models.Store.
type Store interface {
	ServiceUses(ctx context.Context, from, to time.Time) ([]models.ServiceUse, error)
	Prices(ctx context.Context, month string) ([]models.Price, error)
}

// New returns the area over store.
func New(c *handlers.Core, store Store) *Handler { return &Handler{Core: c, store: store} }
