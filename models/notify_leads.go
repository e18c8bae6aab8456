package models

import (
	"context"
	"fmt"
	"slices"
	"time"

	"gorm.io/gorm"
)

// NotifyLeads sends a notification once (by key) to the leads of the projects, each lead
// once however many of them they lead, in one transaction, and returns how many leads were
// told for the first time: a second send with the same key tells nobody.
func (s *Store) NotifyLeads(ctx context.Context, projectIDs []int64, key, kind, msg string, now time.Time) (int, error) {
	if len(projectIDs) == 0 {
		return 0, nil
	}
	var fresh []int64
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var ids []int64
		err := tx.Model(&ProjectMember{}).Where("project_id IN ? AND role = ?", projectIDs, ProjectRoleLead).
			Pluck("user_id", &ids).Error
		if err != nil {
			return err
		}
		fresh, err = notifyNew(tx, slices.Compact(slices.Sorted(slices.Values(ids))), key, kind, msg, now)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("models: notify the leads of projects %v: %w", projectIDs, err)
	}
	return len(fresh), nil
}
