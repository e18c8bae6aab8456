package models

import (
	"time"

	"gorm.io/gorm"
)

// Migration 43's frozen additions: a task's attempts (which one runs, how many it may have,
// whether its own failure reruns it) and the place of its last checkpoint; each allocation's
// attempt and, for an attempt that was rerun, from when its seconds were lost; and one row
// per attempt that ended in a rerun.
type (
	v43Task struct {
		Attempt        int    `gorm:"not null;default:1"`
		MaxAttempts    int    `gorm:"not null;default:2"`
		RerunOnFailure bool   `gorm:"not null;default:false"`
		LastCheckpoint string `gorm:"size:1024;not null;default:''"`
	}
	v43Allocation struct {
		Attempt   int `gorm:"not null;default:1"`
		RerunFrom *time.Time
	}
	// v43TaskAttempt is one attempt of a task that ended and was rerun: where it ran, when,
	// why it ended and the checkpoint the next attempt resumes from.
	v43TaskAttempt struct {
		ID           int64
		TaskID       int64  `gorm:"not null;uniqueIndex:idx_task_attempts_task,priority:1"`
		Task         v1Task `gorm:"constraint:OnDelete:CASCADE"`
		Attempt      int    `gorm:"not null;uniqueIndex:idx_task_attempts_task,priority:2"`
		StartedAt    *time.Time
		EndedAt      time.Time `gorm:"not null"`
		Ending       string    `gorm:"size:20;not null"`
		Reason       string    `gorm:"size:500;not null;default:''"`
		CheckpointAt *time.Time
		Checkpoint   string `gorm:"size:1024;not null;default:''"`
	}
)

func (v43Task) TableName() string        { return "tasks" }
func (v43Allocation) TableName() string  { return "allocations" }
func (v43TaskAttempt) TableName() string { return "task_attempts" }

// migrateV43Reruns adds what reruns from the last checkpoint need. Tasks stored before take
// the default of 2 attempts, as new ones do; every allocation so far was a first attempt's.
func migrateV43Reruns(tx *gorm.DB) error {
	m := tx.Migrator()
	for _, f := range []string{"Attempt", "MaxAttempts", "RerunOnFailure", "LastCheckpoint"} {
		if err := m.AddColumn(&v43Task{}, f); err != nil {
			return err
		}
	}
	for _, f := range []string{"Attempt", "RerunFrom"} {
		if err := m.AddColumn(&v43Allocation{}, f); err != nil {
			return err
		}
	}
	return m.CreateTable(&v43TaskAttempt{})
}
