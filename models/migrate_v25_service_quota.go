package models

import "gorm.io/gorm"

// Frozen struct of migration 25 (a quota's cap on the cards its project's services hold).
type v25Quota struct {
	// MaxServiceGPUs caps the GPUs the project's services hold at once within the quota's
	// limit; 0 for no cap of their own.
	MaxServiceGPUs int `gorm:"column:max_service_gpus;not null;default:0"`
}

func (v25Quota) TableName() string { return "quotas" }

// migrateV25ServiceQuota adds a quota's cap on its project's service cards.
func migrateV25ServiceQuota(tx *gorm.DB) error {
	return tx.Migrator().AddColumn(&v25Quota{}, "MaxServiceGPUs")
}
