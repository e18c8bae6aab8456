package models

import (
	"context"
	"fmt"
)

// PriceHistory returns every price row ever set, default list first, then by project, spec
// and newest month first: the prices page shows it as each spec's history.
func (s *Store) PriceHistory(ctx context.Context) ([]Price, error) {
	var rows []Price
	err := s.db.WithContext(ctx).Order("project_id, spec, from_month DESC").Find(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("models: price history: %w", err)
	}
	return rows, nil
}

// BillingPlanHistory returns every billing plan ever set, by project and newest month first.
func (s *Store) BillingPlanHistory(ctx context.Context) ([]BillingPlan, error) {
	var rows []BillingPlan
	err := s.db.WithContext(ctx).Order("project_id, from_month DESC").Find(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("models: billing plan history: %w", err)
	}
	return rows, nil
}
