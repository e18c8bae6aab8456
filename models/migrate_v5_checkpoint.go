package models

import (
	"time"

	"gorm.io/gorm"
)

// v5CheckpointTask is the tasks table as migration 5 sees it.
type v5CheckpointTask struct {
	// LastCheckpointAt is when the task last reported a checkpoint; the ledger counts an
	// interrupted task's wasted work from it.
	LastCheckpointAt *time.Time
}

func (v5CheckpointTask) TableName() string { return "tasks" }

// migrateV5Checkpoint adds a task's last checkpoint. The node agent's migration adds the same
// column; whichever runs first adds it and the other finds it there.
func migrateV5Checkpoint(tx *gorm.DB) error {
	if tx.Migrator().HasColumn(&v5CheckpointTask{}, "LastCheckpointAt") {
		return nil
	}
	return tx.Migrator().AddColumn(&v5CheckpointTask{}, "LastCheckpointAt")
}
