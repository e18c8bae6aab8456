package models

import "gorm.io/gorm"

// Frozen struct of migration 22 (where a task's data is in each region).
type v22Task struct {
	// DataLocations is a JSON object of region → location; empty text for none.
	DataLocations string `gorm:"not null;default:''"`
}

func (v22Task) TableName() string { return "tasks" }

// migrateV22DataLocations adds the data location per region a task carries.
func migrateV22DataLocations(tx *gorm.DB) error {
	return tx.Migrator().AddColumn(&v22Task{}, "DataLocations")
}
