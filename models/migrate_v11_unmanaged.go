package models

import (
	"time"

	"gorm.io/gorm"
)

// Frozen structs of migration 11 (unmanaged GPU use metered).
type (
	v11UnmanagedSpan struct {
		ID    int64
		GPUID int64 `gorm:"column:gpu_id;not null;index:idx_unmanaged_spans_gpu"`
		Start int64 `gorm:"column:start_s;not null"`
		End   int64 `gorm:"column:end_s;not null;index:idx_unmanaged_spans_end"`
	}
	v11GPU struct {
		UnmanagedReadAt *time.Time
	}
)

func (v11UnmanagedSpan) TableName() string { return "unmanaged_spans" }
func (v11GPU) TableName() string           { return "gpus" }

// migrateV11Unmanaged adds the ended spans of each GPU's unmanaged use and, on each GPU, the
// time of the last reading walked for it.
func migrateV11Unmanaged(tx *gorm.DB) error {
	if err := tx.Migrator().CreateTable(&v11UnmanagedSpan{}); err != nil {
		return err
	}
	return tx.Migrator().AddColumn(&v11GPU{}, "UnmanagedReadAt")
}
