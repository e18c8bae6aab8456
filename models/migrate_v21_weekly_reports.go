package models

import (
	"time"

	"gorm.io/gorm"
)

// v21WeeklyReport is migration 21's frozen record of a weekly report sent: one row per ISO
// week, claimed by the replica that sends it.
type v21WeeklyReport struct {
	Week      string    `gorm:"primaryKey;size:8"`
	ClaimedAt time.Time `gorm:"not null"`
}

func (v21WeeklyReport) TableName() string { return "weekly_reports" }

// migrateV21WeeklyReports adds the record of the weekly reports sent.
func migrateV21WeeklyReports(tx *gorm.DB) error {
	return tx.Migrator().CreateTable(&v21WeeklyReport{})
}
