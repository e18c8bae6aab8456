package models

import (
	"time"

	"gorm.io/gorm"
)

// Migration 45's frozen additions: trials (a task run at small sizes on a few specs for a
// bounded time before its full run), the trial each of its runs belongs to, and whether an
// allocation was a trial's (the ledger's trial class).
type (
	v45Trial struct {
		ID        int64
		ProjectID int64     `gorm:"not null;index"`
		Project   v1Project `gorm:"constraint:OnDelete:CASCADE"`
		Owner     string    `gorm:"size:100;not null"`
		Name      string    `gorm:"size:200;not null"`
		Specs     string    `gorm:"size:1000;not null"`
		Sizes     string    `gorm:"size:200;not null"`
		BoundS    int64     `gorm:"not null"`
		WorkUnits int64     `gorm:"not null;default:0"`
		FullGPUs  int       `gorm:"column:full_gpus;not null;default:0"`
		CreatedAt time.Time `gorm:"not null"`
		// FullTaskID is the full run submitted from the trial; nil until then.
		FullTaskID *int64
		FullBy     string `gorm:"size:100;not null;default:''"`
	}
	v45Task struct {
		TrialID *int64 `gorm:"index"`
	}
	v45Allocation struct {
		Trial bool `gorm:"not null;default:false"`
	}
)

func (v45Trial) TableName() string      { return "trials" }
func (v45Task) TableName() string       { return "tasks" }
func (v45Allocation) TableName() string { return "allocations" }

// migrateV45Trials adds trials. Tasks and allocations stored before were no trial's.
func migrateV45Trials(tx *gorm.DB) error {
	m := tx.Migrator()
	if err := m.CreateTable(&v45Trial{}); err != nil {
		return err
	}
	if err := m.AddColumn(&v45Task{}, "TrialID"); err != nil {
		return err
	}
	if err := m.CreateIndex(&v45Task{}, "TrialID"); err != nil {
		return err
	}
	return m.AddColumn(&v45Allocation{}, "Trial")
}
