package models

import (
	"time"

	"gorm.io/gorm"
)

// Frozen structs of migration 7 (promises of issue #10).
type (
	// v7TaskNodeExit is one node's exit from a task that runs on several nodes.
	v7TaskNodeExit struct {
		TaskID   int64  `gorm:"primaryKey;autoIncrement:false"`
		Task     v1Task `gorm:"constraint:OnDelete:CASCADE"`
		NodeID   int64  `gorm:"primaryKey;autoIncrement:false"`
		State    string `gorm:"size:20;not null"`
		ExitCode int    `gorm:"not null;default:0"`
		At       time.Time
	}
)

func (v7TaskNodeExit) TableName() string { return "task_node_exits" }

// migrateV7Promises adds the exits of the nodes of multi-node tasks.
func migrateV7Promises(tx *gorm.DB) error {
	return tx.Migrator().CreateTable(&v7TaskNodeExit{})
}
