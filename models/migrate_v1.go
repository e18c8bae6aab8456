package models

import (
	"time"

	"gorm.io/gorm"
)

// Frozen structs of migration 1.
type (
	v1Pool struct {
		ID          int64
		Name        string `gorm:"size:100;not null;uniqueIndex"`
		Spec        string `gorm:"size:100;not null"`
		Provider    string `gorm:"size:50;not null"`
		GPUsPerNode int    `gorm:"column:gpus_per_node;not null"`
		CreatedAt   time.Time
	}
	v1Node struct {
		ID           int64
		PoolID       int64  `gorm:"not null;index"`
		Pool         v1Pool `gorm:"constraint:OnDelete:RESTRICT"`
		Hostname     string `gorm:"size:255;not null;uniqueIndex"`
		MachineID    string `gorm:"size:255;not null"`
		TokenHash    string `gorm:"size:64;not null;uniqueIndex"`
		State        string `gorm:"size:20;not null"`
		RegisteredAt time.Time
		LastSeenAt   time.Time
	}
	v1GPU struct {
		ID             int64
		NodeID         int64  `gorm:"not null;index"`
		Node           v1Node `gorm:"constraint:OnDelete:CASCADE"`
		UUID           string `gorm:"column:uuid;size:100;not null;uniqueIndex"`
		Index          int    `gorm:"column:gpu_index;not null"`
		Name           string `gorm:"size:255;not null"`
		Spec           string `gorm:"size:100;not null;index"`
		MemoryTotalMiB int64  `gorm:"column:memory_total_mib;not null"`
		MemoryUsedMiB  int64  `gorm:"column:memory_used_mib;not null"`
		UtilPct        int    `gorm:"not null"`
		TempC          int    `gorm:"not null"`
		PowerW         int    `gorm:"not null"`
		SampledAt      *time.Time
		IdleSince      *time.Time
		SaturatedSince *time.Time
	}
	v1GPUSample struct {
		GPUID         int64 `gorm:"column:gpu_id;primaryKey;autoIncrement:false"`
		TS            int64 `gorm:"primaryKey;autoIncrement:false;index"`
		MemoryUsedMiB int64 `gorm:"column:memory_used_mib;not null"`
		UtilPct       int   `gorm:"not null"`
		TempC         int   `gorm:"not null"`
		PowerW        int   `gorm:"not null"`
	}
	v1GPURollup struct {
		GPUID      int64 `gorm:"column:gpu_id;primaryKey;autoIncrement:false"`
		Resolution int   `gorm:"primaryKey;autoIncrement:false"`
		Bucket     int64 `gorm:"primaryKey;autoIncrement:false"`
		N          int64 `gorm:"not null"`
		UtilSum    int64 `gorm:"not null"`
		UtilMax    int   `gorm:"not null"`
		MemSum     int64 `gorm:"not null"`
		MemMax     int64 `gorm:"not null"`
		NIdle      int64 `gorm:"not null"`
		NActive    int64 `gorm:"not null"`
	}
	v1Project struct {
		ID        int64
		Name      string `gorm:"size:100;not null;uniqueIndex"`
		CreatedAt time.Time
	}
	v1Task struct {
		ID             int64
		ProjectID      int64     `gorm:"not null;index"`
		Project        v1Project `gorm:"constraint:OnDelete:RESTRICT"`
		Name           string    `gorm:"size:200;not null"`
		Owner          string    `gorm:"size:100;not null"`
		GPUs           int       `gorm:"column:gpus;not null"`
		Spec           string    `gorm:"size:100;not null"`
		Queue          string    `gorm:"size:10;not null"`
		Priority       string    `gorm:"size:10;not null"`
		EstGPUHours    float64   `gorm:"column:est_gpu_hours;not null"`
		MaxRuntimeS    int64     `gorm:"not null"`
		Command        string    `gorm:"not null"`
		Env            string    `gorm:"not null"`
		Workdir        string    `gorm:"size:1024;not null"`
		DataReady      bool      `gorm:"not null"`
		DataCheck      string    `gorm:"size:2048;not null"`
		Deferrable     bool      `gorm:"not null"`
		State          string    `gorm:"size:20;not null;index"`
		Reason         string    `gorm:"size:500;not null"`
		IdempotencyKey *string   `gorm:"size:200;uniqueIndex"`
		SubmittedAt    time.Time `gorm:"not null"`
		StartedAt      *time.Time
		EndedAt        *time.Time
		ExitCode       *int
		OutputUnits    int64 `gorm:"not null"`
		NodeID         *int64
		StopState      string `gorm:"size:20;not null"`
		StopReason     string `gorm:"size:500;not null"`
		StopAt         *time.Time
	}
	v1TaskEvent struct {
		ID     int64
		TaskID int64     `gorm:"not null;index"`
		Task   v1Task    `gorm:"constraint:OnDelete:CASCADE"`
		At     time.Time `gorm:"not null"`
		From   string    `gorm:"column:from_state;size:20;not null"`
		To     string    `gorm:"column:to_state;size:20;not null"`
		Reason string    `gorm:"size:500;not null"`
	}
	v1Allocation struct {
		ID        int64
		TaskID    int64      `gorm:"not null;index"`
		Task      v1Task     `gorm:"constraint:OnDelete:RESTRICT"`
		GPUID     int64      `gorm:"column:gpu_id;not null;index:idx_allocations_gpu_open,priority:1"`
		GPU       v1GPU      `gorm:"constraint:OnDelete:RESTRICT"`
		NodeID    int64      `gorm:"not null"`
		ProjectID int64      `gorm:"not null;index"`
		StartedAt time.Time  `gorm:"not null;index"`
		EndedAt   *time.Time `gorm:"index:idx_allocations_gpu_open,priority:2"`
		Overflow  bool       `gorm:"not null"`
	}
)

func (v1Pool) TableName() string       { return "pools" }
func (v1Node) TableName() string       { return "nodes" }
func (v1GPU) TableName() string        { return "gpus" }
func (v1GPUSample) TableName() string  { return "gpu_samples" }
func (v1GPURollup) TableName() string  { return "gpu_rollups" }
func (v1Project) TableName() string    { return "projects" }
func (v1Task) TableName() string       { return "tasks" }
func (v1TaskEvent) TableName() string  { return "task_events" }
func (v1Allocation) TableName() string { return "allocations" }

func migrateV1(tx *gorm.DB) error {
	err := tx.Migrator().CreateTable(&v1Pool{}, &v1Node{}, &v1GPU{}, &v1GPUSample{}, &v1GPURollup{},
		&v1Project{}, &v1Task{}, &v1TaskEvent{}, &v1Allocation{})
	if err != nil {
		return err
	}
	// A GPU is held by at most one open allocation: the database itself refuses a double grant.
	return tx.Exec("CREATE UNIQUE INDEX idx_allocations_one_open ON allocations (gpu_id) WHERE ended_at IS NULL").Error
}
