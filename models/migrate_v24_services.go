package models

import (
	"time"

	"gorm.io/gorm"
)

// v24ServiceRollup is migration 24's frozen service rollup: what one service's replicas
// served in one 5-minute bucket, their histograms added bucket by bucket (JSON of
// ServingHistogram; empty when the server exposes none).
type v24ServiceRollup struct {
	ID               int64
	ServiceID        int64  `gorm:"not null;uniqueIndex:idx_service_rollups_bucket,priority:1"`
	Bucket           int64  `gorm:"not null;uniqueIndex:idx_service_rollups_bucket,priority:2;index"`
	Server           string `gorm:"size:16;not null"`
	Model            string `gorm:"size:200;not null"`
	Requests         float64
	PromptTokens     float64
	GenerationTokens float64
	TTFT             string `gorm:"column:ttft;type:text;not null"`
	E2E              string `gorm:"column:e2e;type:text;not null"`
	Restarts         int    `gorm:"not null"`
	Narrowed         bool   `gorm:"not null"`
}

func (v24ServiceRollup) TableName() string { return "service_rollups" }

// v24Task is the tasks table's new service columns.
type v24Task struct {
	Kind        string `gorm:"size:16;not null;default:''"`
	Model       string `gorm:"size:200;not null;default:''"`
	ServiceID   *int64 `gorm:"index"`
	Replicas    int    `gorm:"not null;default:0"`
	MetricsPort int    `gorm:"not null;default:0"`
	MetricsPath string `gorm:"size:200;not null;default:''"`
	// TTFTTargetMS is the service's target for its time to first token at p95; 0 for none.
	TTFTTargetMS int `gorm:"column:ttft_target_ms;not null;default:0"`
	// ScrapedAt is the end of the last metrics delta stored for the replica; ScrapeError
	// the last scrape's failure, empty when it answered.
	ScrapedAt   *time.Time
	ScrapeError string `gorm:"size:200;not null;default:''"`
}

func (v24Task) TableName() string { return "tasks" }

// migrateV24Services adds inference services: the service columns of tasks and the services'
// 5-minute rollups.
func migrateV24Services(tx *gorm.DB) error {
	for _, col := range []string{"Kind", "Model", "ServiceID", "Replicas", "MetricsPort", "MetricsPath", "TTFTTargetMS", "ScrapedAt", "ScrapeError"} {
		if err := tx.Migrator().AddColumn(&v24Task{}, col); err != nil {
			return err
		}
	}
	if err := tx.Migrator().CreateIndex(&v24Task{}, "ServiceID"); err != nil {
		return err
	}
	return tx.Migrator().CreateTable(&v24ServiceRollup{})
}
