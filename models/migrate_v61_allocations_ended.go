package models

import "gorm.io/gorm"

// migrateV61AllocationsEnded indexes the closed allocations by their end: the quotas' use
// reads, every call, only the allocations that ended after its settled hour (quota_usage.go),
// and without an index of the end that was every allocation of the month.
func migrateV61AllocationsEnded(tx *gorm.DB) error {
	return tx.Exec("CREATE INDEX idx_allocations_ended ON allocations (ended_at) WHERE ended_at IS NOT NULL").Error
}
