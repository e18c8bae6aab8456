package models

import "gorm.io/gorm"

// v29Task is migration 29's frozen addition to a task: a service's health path.
type v29Task struct {
	HealthPath string `gorm:"size:200;not null;default:''"`
}

func (v29Task) TableName() string { return "tasks" }

// migrateV29HealthPath adds the path where a service replica answers whether it is healthy.
func migrateV29HealthPath(tx *gorm.DB) error {
	return tx.Migrator().AddColumn(&v29Task{}, "HealthPath")
}
