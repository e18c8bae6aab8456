package models

import (
	"time"

	"gorm.io/gorm"
)

// v34PoolScaleState is migration 34's frozen addition to a pool's scaling state: its
// machines that failed to boot in a row, the last failure (when, its reason code and the
// numbers behind it), and since when the pool has stopped creating machines.
type v34PoolScaleState struct {
	BootFailures      int `gorm:"not null;default:0"`
	BootFailedAt      *time.Time
	BootFailureReason string `gorm:"size:50;not null;default:''"`
	BootFailureDetail string `gorm:"size:2000;not null;default:''"`
	FailingSince      *time.Time
}

func (v34PoolScaleState) TableName() string { return "pool_scale_states" }

// migrateV34BootFailures adds each pool's boot failures in a row and since when it fails.
func migrateV34BootFailures(tx *gorm.DB) error {
	for _, f := range []string{"BootFailures", "BootFailedAt", "BootFailureReason", "BootFailureDetail", "FailingSince"} {
		if err := tx.Migrator().AddColumn(&v34PoolScaleState{}, f); err != nil {
			return err
		}
	}
	return nil
}
