package handlers

import (
	"context"
	"time"

	"kashi/billing"
	"kashi/models"
)

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
	// The prices page (#15).
	PriceHistory(ctx context.Context) ([]models.Price, error)
	BillingPlanHistory(ctx context.Context) ([]models.BillingPlan, error)
	BoardOptions(ctx context.Context) (pools, specs, projects []string, err error)
	LastHeldBefore(ctx context.Context, projectIDs []int64, cut time.Time) (time.Time, bool, error)
}

// newBills returns the area over store.
func newBills(c *core, store BillsStore) *Bills { return &Bills{core: c, store: store} }
