package models

import (
	"time"

	"gorm.io/gorm"
)

// Frozen structs of migration 14 (the board over time and alerts that can be acted on):
// the new columns only.
type (
	v14GPURollup struct {
		// TempSum, PowerSum sum the bucket's readings (divide by N); TempMax, PowerMax are
		// the largest. 0 for buckets rolled up before they were recorded.
		TempSum  int64 `gorm:"not null;default:0"`
		TempMax  int   `gorm:"not null;default:0"`
		PowerSum int64 `gorm:"not null;default:0"`
		PowerMax int   `gorm:"not null;default:0"`
	}
	v14Alert struct {
		// Code and Params are the alert's sentence, rendered through the catalogs; "" for
		// alerts raised before, which show Message as it is.
		Code   string `gorm:"size:80;not null;default:''"`
		Params string `gorm:"size:2000;not null;default:''"`
		// Severity is critical, warning or info.
		Severity string `gorm:"size:20;not null;default:'warning'"`
		// TaskID, NodeID and Pool are what the alert is about, for grouping and links; 0 and
		// "" when it is about none.
		TaskID  int64  `gorm:"not null;default:0;index"`
		NodeID  int64  `gorm:"not null;default:0;index"`
		Pool    string `gorm:"size:100;not null;default:''"`
		AckedBy string `gorm:"size:100;not null;default:''"`
		AckedAt *time.Time
	}
)

func (v14GPURollup) TableName() string { return "gpu_rollups" }
func (v14Alert) TableName() string     { return "alerts" }

// migrateV14Board records temperature and power in each rollup, indexes rollups by time for
// the board's strips, and gives alerts a code with
// parameters, a severity, what they are about, and who acknowledged them.
func migrateV14Board(tx *gorm.DB) error {
	m := tx.Migrator()
	for _, c := range []struct {
		model any
		field string
	}{
		{&v14GPURollup{}, "TempSum"}, {&v14GPURollup{}, "TempMax"}, {&v14GPURollup{}, "PowerSum"}, {&v14GPURollup{}, "PowerMax"},
		{&v14Alert{}, "Code"}, {&v14Alert{}, "Params"}, {&v14Alert{}, "Severity"}, {&v14Alert{}, "TaskID"},
		{&v14Alert{}, "NodeID"}, {&v14Alert{}, "Pool"}, {&v14Alert{}, "AckedBy"}, {&v14Alert{}, "AckedAt"},
	} {
		if err := m.AddColumn(c.model, c.field); err != nil {
			return err
		}
	}
	for _, idx := range []string{"TaskID", "NodeID"} {
		if err := m.CreateIndex(&v14Alert{}, idx); err != nil {
			return err
		}
	}
	// The board's recent-use strips read every GPU's rollups of the last hour.
	return tx.Exec("CREATE INDEX idx_gpu_rollups_resolution_bucket ON gpu_rollups (resolution, bucket)").Error
}
