package models

import (
	"time"

	"gorm.io/gorm"
)

// Frozen structs of migration 8 (multi-node task exits, idle-reclaim overrides, pools at
// their maximum).
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
	// v7Project holds a project's idle-reclaim override; zero keeps the pool's setting.
	v7Project struct {
		ReclaimNever       bool  `gorm:"not null;default:false"`
		ReclaimIdleS       int64 `gorm:"not null;default:0"`
		ReclaimGraceS      int64 `gorm:"not null;default:0"`
		ReclaimKeepForS    int64 `gorm:"not null;default:0"`
		ReclaimKeepsPerDay int   `gorm:"not null;default:0"`
		ReclaimSetupGraceS int64 `gorm:"not null;default:0"`
	}
	// v7PoolScaleState holds since when a pool has been at its maximum with demand waiting.
	v7PoolScaleState struct {
		AtMaxSince *time.Time
	}
)

func (v7TaskNodeExit) TableName() string   { return "task_node_exits" }
func (v7Project) TableName() string        { return "projects" }
func (v7PoolScaleState) TableName() string { return "pool_scale_states" }

// migrateV8Promises adds the exits of the nodes of multi-node tasks, the projects'
// idle-reclaim overrides, and since when each pool has been at its maximum with demand waiting.
func migrateV8Promises(tx *gorm.DB) error {
	m := tx.Migrator()
	if err := m.CreateTable(&v7TaskNodeExit{}); err != nil {
		return err
	}
	for _, f := range []string{"ReclaimNever", "ReclaimIdleS", "ReclaimGraceS", "ReclaimKeepForS", "ReclaimKeepsPerDay", "ReclaimSetupGraceS"} {
		if err := m.AddColumn(&v7Project{}, f); err != nil {
			return err
		}
	}
	return m.AddColumn(&v7PoolScaleState{}, "AtMaxSince")
}
