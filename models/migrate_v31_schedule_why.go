package models

import "gorm.io/gorm"

// v31TaskSchedule is migration 31's frozen addition to a schedule: why Kashi suspended it.
type v31TaskSchedule struct {
	SuspendedWhy string `gorm:"size:400;not null;default:''"`
}

func (v31TaskSchedule) TableName() string { return "task_schedules" }

// migrateV31ScheduleWhy adds why a schedule was suspended by Kashi rather than by a lead.
func migrateV31ScheduleWhy(tx *gorm.DB) error {
	return tx.Migrator().AddColumn(&v31TaskSchedule{}, "SuspendedWhy")
}
