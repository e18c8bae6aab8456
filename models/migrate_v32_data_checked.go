package models

import (
	"time"

	"gorm.io/gorm"
)

// v32Task is migration 32's frozen addition to a task: when its data check last answered.
type v32Task struct {
	DataCheckedAt *time.Time
}

func (v32Task) TableName() string { return "tasks" }

// migrateV32DataChecked adds when a task's data check last answered, so that a check that
// stays silent (its URL never answers, or no check runs at all) shows on the task.
func migrateV32DataChecked(tx *gorm.DB) error {
	return tx.Migrator().AddColumn(&v32Task{}, "DataCheckedAt")
}
