package handlers

import (
	"context"
	"time"

	"kashi/models"
)

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

// newServices returns the area over store.
func newServices(c *core, store ServicesStore) *Services { return &Services{core: c, store: store} }
