package models

import "gorm.io/gorm"

// Frozen struct of migration 15 (tasks that accept several specs and regions).
type v15Task struct {
	// Specs and Regions are JSON lists of names; empty text for none.
	Specs   string `gorm:"not null;default:''"`
	Regions string `gorm:"not null;default:''"`
}

func (v15Task) TableName() string { return "tasks" }

// migrateV15Places adds the specs and regions a task accepts.
func migrateV15Places(tx *gorm.DB) error {
	m := tx.Migrator()
	for _, f := range []string{"Specs", "Regions"} {
		if err := m.AddColumn(&v15Task{}, f); err != nil {
			return err
		}
	}
	return nil
}
