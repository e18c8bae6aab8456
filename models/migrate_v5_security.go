package models

import (
	"time"

	"gorm.io/gorm"
)

// Frozen structs of migration 5.
type (
	v5TaskIdempotency struct {
		IdempotencyScope string `gorm:"size:100;not null;default:''"`
		IdempotencyHash  string `gorm:"size:64;not null;default:''"`
	}
	v5JoinToken struct {
		ID        int64
		TokenHash string `gorm:"size:64;not null;uniqueIndex"`
		MachineID string `gorm:"size:255;not null"`
		CreatedBy string `gorm:"size:100;not null"`
		CreatedAt time.Time
		UsedAt    *time.Time
		Hostname  string `gorm:"size:255;not null"`
		RevokedAt *time.Time
	}
	v5SecuritySetting struct {
		ID                  int64 `gorm:"primaryKey;autoIncrement:false"`
		SharedJoinRevokedAt *time.Time
		SharedJoinRevokedBy string `gorm:"size:100;not null"`
	}
)

func (v5TaskIdempotency) TableName() string { return "tasks" }
func (v5JoinToken) TableName() string       { return "join_tokens" }
func (v5SecuritySetting) TableName() string { return "security_settings" }

// migrateV5 scopes idempotency keys to the caller and project: a key one user sent no longer
// finds another user's task. The request's hash is kept so a key reused with another body is
// refused. It adds single-use join tokens bound to a machine id, and the security settings
// row that records the revocation of the shared join token.
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
	if err := tx.Exec("CREATE UNIQUE INDEX idx_tasks_idempotency ON tasks (project_id, idempotency_scope, idempotency_key)").Error; err != nil {
		return err
	}
	return m.CreateTable(&v5JoinToken{}, &v5SecuritySetting{})
}
