package models

import (
	"time"

	"gorm.io/gorm"
)

// Frozen structs of migration 13 (projects and quotas in the browser).
type (
	// v13Project is when a project was archived; nil while it is in use.
	v13Project struct {
		ArchivedAt *time.Time
	}
	// v13Quota holds a quota's own reminders: days before its end and shares of its budget,
	// comma-separated; empty keeps the server's (30,14,7 and 80,100).
	v13Quota struct {
		RemindEndDays    string `gorm:"size:40;not null;default:''"`
		RemindBudgetPcts string `gorm:"size:40;not null;default:''"`
	}
)

func (v13Project) TableName() string { return "projects" }
func (v13Quota) TableName() string   { return "quotas" }

// migrateV13Admin adds the projects' archive time and the quotas' own reminders.
func migrateV13Admin(tx *gorm.DB) error {
	m := tx.Migrator()
	if err := m.AddColumn(&v13Project{}, "ArchivedAt"); err != nil {
		return err
	}
	for _, f := range []string{"RemindEndDays", "RemindBudgetPcts"} {
		if err := m.AddColumn(&v13Quota{}, f); err != nil {
			return err
		}
	}
	return nil
}
