package models

import "gorm.io/gorm"

// migrateV20NodeOpen indexes the open allocations by node: every agent poll asks which tasks
// its node runs (Assignments), and without it each poll read every allocation ever made.
func migrateV20NodeOpen(tx *gorm.DB) error {
	return tx.Exec(`CREATE INDEX idx_allocations_node_open ON allocations (node_id, task_id) WHERE ended_at IS NULL`).Error
}
