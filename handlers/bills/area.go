// Package bills serves bills, prices, billing plans, adjustments, issued months and weekly
// reports, in pages, JSON, CSV and XLSX.
//
// Each action is one file (parse, call, render); the area reads the store through its own
// Store interface and shares only package handlers with the other areas.
package bills

import (
	"context"
	"time"

	"kashi/billing"
	"kashi/handlers"
	"kashi/models"
	"kashi/pilot"
)

// Handler serves bills, prices, billing plans, adjustments and weekly reports.
type Handler struct {
	*handlers.Core
	store Store
	// changes measures the price changes and the weekly report's changes once per period:
	// the pools area's cache (web.NewAreas), so that a change is measured once.
	changes *pilot.ChangeCache
}

// Store is what Bills needs of models.Store.
type Store interface {
	billing.Issuer
	// The weekly report's setting changes (pilot.WeekChanges).
	pilot.ChangeSource
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

// New returns the area over store, measuring changes through changes.
func New(c *handlers.Core, store Store, changes *pilot.ChangeCache) *Handler {
	return &Handler{Core: c, store: store, changes: changes}
}
