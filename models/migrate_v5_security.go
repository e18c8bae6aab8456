package models

import (
	"gorm.io/gorm"
)

// Frozen structs of migration 5.
type (
	v5TaskIdempotency struct {
		IdempotencyScope string `gorm:"size:100;not null;default:''"`
		IdempotencyHash  string `gorm:"size:64;not null;default:''"`
	}
)

func (v5TaskIdempotency) TableName() string { return "tasks" }

// migrateV5 scopes idempotency keys to the caller and project: a key one user sent no longer
// finds another user's task. The request's hash is kept so a key reused with another body is
// refused.
func migrateV5(tx *gorm.DB) error {
	m := tx.Migrator()
	for _, col := range []string{"IdempotencyScope", "IdempotencyHash"} {
		if err := m.AddColumn(&v5TaskIdempotency{}, col); err != nil {
			return err
		}
	}
	if err := tx.Exec("DROP INDEX idx_tasks_idempotency_key").Error; err != nil {
		return err
	}
	return tx.Exec("CREATE UNIQUE INDEX idx_tasks_idempotency ON tasks (project_id, idempotency_scope, idempotency_key)").Error
}
