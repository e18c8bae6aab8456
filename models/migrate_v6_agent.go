package models

import (
	"time"

	"gorm.io/gorm"
)

// Frozen structs of migration 6 (agent): the new columns only.
type (
	v5AgentTask struct {
		Image            string `gorm:"size:255;not null;default:''"`
		OutputUnit       string `gorm:"size:50;not null;default:''"`
		LastCheckpointAt *time.Time
	}
	v5AgentGPU struct {
		// UnmanagedMiB is the GPU memory held, at the latest sample, by processes of no task.
		UnmanagedMiB int64 `gorm:"column:unmanaged_mib;not null;default:0"`
		// UnmanagedWho names them: "user command (pid), …".
		UnmanagedWho   string `gorm:"size:500;not null;default:''"`
		UnmanagedSince *time.Time
	}
	v5AgentTaskLog struct {
		TaskID    int64  `gorm:"primaryKey;autoIncrement:false"`
		Task      v1Task `gorm:"constraint:OnDelete:CASCADE"`
		Tail      string `gorm:"not null"`
		EndOffset int64  `gorm:"not null"`
		UpdatedAt time.Time
	}
)

func (v5AgentTask) TableName() string    { return "tasks" }
func (v5AgentGPU) TableName() string     { return "gpus" }
func (v5AgentTaskLog) TableName() string { return "task_logs" }

// migrateV6Agent adds a task's output unit and last checkpoint, the unmanaged use of each
// GPU, and the tails of tasks' logs.
func migrateV6Agent(tx *gorm.DB) error {
	m := tx.Migrator()
	if err := m.CreateTable(&v5AgentTaskLog{}); err != nil {
		return err
	}
	for _, c := range []struct {
		model any
		field string
	}{
		{&v5AgentTask{}, "Image"}, {&v5AgentTask{}, "OutputUnit"}, {&v5AgentTask{}, "LastCheckpointAt"},
		{&v5AgentGPU{}, "UnmanagedMiB"}, {&v5AgentGPU{}, "UnmanagedWho"}, {&v5AgentGPU{}, "UnmanagedSince"},
	} {
		if err := m.AddColumn(c.model, c.field); err != nil {
			return err
		}
	}
	return nil
}
