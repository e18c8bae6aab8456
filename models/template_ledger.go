package models

import (
	"context"
	"fmt"
)

// LedgerTemplate names the template a task was submitted from, for reports by template.
type LedgerTemplate struct {
	TaskID     int64
	TemplateID int64
	Template   string
}

// LedgerTemplates returns the templates of those of the given tasks that came from one.
func (s *Store) LedgerTemplates(ctx context.Context, taskIDs []int64) ([]LedgerTemplate, error) {
	out := []LedgerTemplate{}
	err := inChunks(taskIDs, func(chunk []int64) error {
		var rows []LedgerTemplate
		err := s.db.WithContext(ctx).Table("tasks").
			Select("tasks.id AS task_id, tasks.template_id AS template_id, task_templates.name AS template").
			Joins("JOIN task_templates ON task_templates.id = tasks.template_id").
			Where("tasks.id IN ?", chunk).Order("tasks.id").Scan(&rows).Error
		out = append(out, rows...)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("models: ledger templates: %w", err)
	}
	return out, nil
}
