package models

import "gorm.io/gorm"

// v48ScheduleRun is migration 48's frozen addition to a schedule's run: the pipeline it
// submitted, for a schedule of a pipeline template.
type v48ScheduleRun struct {
	PipelineID *int64
}

func (v48ScheduleRun) TableName() string { return "schedule_runs" }

// migrateV48PipelineSchedules adds the pipeline a schedule's run submitted.
func migrateV48PipelineSchedules(tx *gorm.DB) error {
	return tx.Migrator().AddColumn(&v48ScheduleRun{}, "PipelineID")
}
