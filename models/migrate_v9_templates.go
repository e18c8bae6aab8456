package models

import (
	"time"

	"gorm.io/gorm"
)

// Frozen structs of migration 9 (task templates and their schedules).
type (
	v9TaskTemplate struct {
		ID          int64
		ProjectID   int64     `gorm:"not null;uniqueIndex:idx_task_templates_project_name,priority:1"`
		Project     v1Project `gorm:"constraint:OnDelete:RESTRICT"`
		Name        string    `gorm:"size:100;not null;uniqueIndex:idx_task_templates_project_name,priority:2"`
		Description string    `gorm:"size:1000;not null"`
		Version     int       `gorm:"not null"`
		Body        string    `gorm:"not null"`
		CreatedBy   string    `gorm:"size:100;not null"`
		CreatedAt   time.Time `gorm:"not null"`
		UpdatedAt   time.Time `gorm:"not null"`
	}
	v9TaskTemplateVersion struct {
		ID          int64
		TemplateID  int64          `gorm:"not null;uniqueIndex:idx_task_template_versions_version,priority:1"`
		Template    v9TaskTemplate `gorm:"constraint:OnDelete:CASCADE"`
		Version     int            `gorm:"not null;uniqueIndex:idx_task_template_versions_version,priority:2"`
		By          string         `gorm:"size:100;not null"`
		At          time.Time      `gorm:"not null"`
		Description string         `gorm:"size:1000;not null"`
		Body        string         `gorm:"not null"`
		Diff        string         `gorm:"not null"`
	}
	v9Task struct {
		TemplateID      *int64 `gorm:"index"`
		TemplateVersion int    `gorm:"not null;default:0"`
	}
	v9TaskSchedule struct {
		ID             int64
		TemplateID     int64          `gorm:"not null;index"`
		Template       v9TaskTemplate `gorm:"constraint:OnDelete:CASCADE"`
		Cron           string         `gorm:"size:100;not null"`
		TimeZone       string         `gorm:"size:64;not null"`
		Overlap        string         `gorm:"size:10;not null"`
		StartDeadlineS int64          `gorm:"not null"`
		Suspended      bool           `gorm:"not null;default:false"`
		Owner          string         `gorm:"size:100;not null"`
		LastPlannedAt  time.Time      `gorm:"not null"`
		CreatedAt      time.Time      `gorm:"not null"`
	}
	v9ScheduleRun struct {
		ID              int64
		ScheduleID      int64          `gorm:"not null;uniqueIndex:idx_schedule_runs_planned,priority:1"`
		Schedule        v9TaskSchedule `gorm:"constraint:OnDelete:CASCADE"`
		PlannedAt       time.Time      `gorm:"not null;uniqueIndex:idx_schedule_runs_planned,priority:2"`
		TemplateVersion int            `gorm:"not null"`
		TaskID          *int64
		Outcome         string    `gorm:"size:20;not null"`
		Detail          string    `gorm:"size:500;not null"`
		At              time.Time `gorm:"not null"`
	}
)

func (v9TaskTemplate) TableName() string        { return "task_templates" }
func (v9TaskTemplateVersion) TableName() string { return "task_template_versions" }
func (v9Task) TableName() string                { return "tasks" }
func (v9TaskSchedule) TableName() string        { return "task_schedules" }
func (v9ScheduleRun) TableName() string         { return "schedule_runs" }

// migrateV9Templates adds task templates with their versions, the template and version each
// task was submitted from, and schedules with their runs.
func migrateV9Templates(tx *gorm.DB) error {
	m := tx.Migrator()
	for _, t := range []any{&v9TaskTemplate{}, &v9TaskTemplateVersion{}, &v9TaskSchedule{}, &v9ScheduleRun{}} {
		if err := m.CreateTable(t); err != nil {
			return err
		}
	}
	for _, f := range []string{"TemplateID", "TemplateVersion"} {
		if err := m.AddColumn(&v9Task{}, f); err != nil {
			return err
		}
	}
	return m.CreateIndex(&v9Task{}, "TemplateID")
}
