package models

import "gorm.io/gorm"

// migrateV28LedgerAllocations adds an index holding everything the ledger reads of an
// allocation, ordered by GPU and start (see LedgerGPUs): a month's bills read a million
// allocations GPU by GPU, beside each GPU's rollups, from the index alone, with neither a
// sort nor a lookup of each row in the table.
func migrateV28LedgerAllocations(tx *gorm.DB) error {
	return tx.Exec(`CREATE INDEX idx_allocations_ledger ON allocations
		(gpu_id, started_at, ended_at, id, task_id, node_id, project_id, overflow)`).Error
}
