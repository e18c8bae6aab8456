package models

import "gorm.io/gorm"

// migrateV62TasksSubmitted indexes the tasks by their submit time: the scheduler reads the
// last week's ended tasks every ten minutes for the ETAs' runtimes (TaskSpans), and without
// the index that read was every task ever submitted, on both databases.
func migrateV62TasksSubmitted(tx *gorm.DB) error {
	return tx.Exec("CREATE INDEX idx_tasks_submitted ON tasks (submitted_at)").Error
}
