package models

import "gorm.io/gorm"

// migrateV60ServiceReplicasIndex keeps only the service replicas in the index of the tasks'
// service: every other task has none, and SQLite, counting the index as long as the table,
// read the whole table of tasks instead for the services' list every minute (ServiceUses)
// and for a bill's service replicas; a partial index it takes.
func migrateV60ServiceReplicasIndex(tx *gorm.DB) error {
	if err := tx.Exec("DROP INDEX idx_tasks_service_id").Error; err != nil {
		return err
	}
	return tx.Exec("CREATE INDEX idx_tasks_service_id ON tasks (service_id) WHERE service_id IS NOT NULL").Error
}
