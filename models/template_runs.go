package models

import (
	"context"
	"fmt"
)

// TemplateRuns returns up to limit tasks submitted from template id that started and
// ended, the latest ended first: the runs its rightsizing advice is read from. A trial's
// runs carry the template's id but are measurements at small sizes, not its runs.
func (s *Store) TemplateRuns(ctx context.Context, id int64, limit int) ([]Task, error) {
	var out []Task
	err := s.db.WithContext(ctx).Where("template_id = ? AND trial_id IS NULL AND started_at IS NOT NULL AND ended_at IS NOT NULL", id).
		Order("ended_at DESC, id DESC").Limit(limit).Find(&out).Error
	if err != nil {
		return nil, fmt.Errorf("models: runs of template %d: %w", id, err)
	}
	return out, nil
}
