package models

import "gorm.io/gorm"

// migrateV18LedgerIndex adds an index holding everything the ledger reads of a rollup (its
// key and counts, see LedgerReadings), so a month's bills read millions of rollups from the
// index alone, without a second lookup of each row in the table.
func migrateV18LedgerIndex(tx *gorm.DB) error {
	return tx.Exec(`CREATE INDEX idx_gpu_rollups_counts ON gpu_rollups (gpu_id, resolution, bucket, n, n_idle, n_active)`).Error
}
