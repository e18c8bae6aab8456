package models

import (
	"time"

	"gorm.io/gorm"
)

// Migration 46's frozen tables: pipelines, their stages (a DAG by name) and the tasks each
// stage submitted, run after run.
type (
	v46Pipeline struct {
		ID          int64
		ProjectID   int64     `gorm:"not null;index"`
		Project     v1Project `gorm:"constraint:OnDelete:RESTRICT"`
		Name        string    `gorm:"size:200;not null"`
		Owner       string    `gorm:"size:100;not null"`
		State       string    `gorm:"size:20;not null;index"`
		Reason      string    `gorm:"size:500;not null;default:''"`
		Run         int       `gorm:"not null;default:1"`
		SubmittedAt time.Time `gorm:"not null;index"`
		EndedAt     *time.Time
	}
	v46PipelineStage struct {
		ID         int64
		PipelineID int64       `gorm:"not null;uniqueIndex:idx_pipeline_stages_name,priority:1"`
		Pipeline   v46Pipeline `gorm:"constraint:OnDelete:CASCADE"`
		Name       string      `gorm:"size:40;not null;uniqueIndex:idx_pipeline_stages_name,priority:2"`
		Position   int         `gorm:"not null"`
		After      string      `gorm:"not null;default:''"`
		AfterEnded string      `gorm:"not null;default:''"`
		Output     string      `gorm:"size:1024;not null;default:''"`
		Body       string      `gorm:"not null"`
		State      string      `gorm:"size:20;not null"`
		Reason     string      `gorm:"size:500;not null;default:''"`
		TaskID     *int64
	}
	v46PipelineTask struct {
		TaskID     int64            `gorm:"primaryKey;autoIncrement:false"`
		Task       v1Task           `gorm:"constraint:OnDelete:CASCADE"`
		PipelineID int64            `gorm:"not null;index"`
		StageID    int64            `gorm:"not null;index"`
		Stage      v46PipelineStage `gorm:"constraint:OnDelete:CASCADE"`
		Run        int              `gorm:"not null"`
	}
)

func (v46Pipeline) TableName() string      { return "pipelines" }
func (v46PipelineStage) TableName() string { return "pipeline_stages" }
func (v46PipelineTask) TableName() string  { return "pipeline_tasks" }

// migrateV46Pipelines adds pipelines by stage.
func migrateV46Pipelines(tx *gorm.DB) error {
	return tx.Migrator().CreateTable(&v46Pipeline{}, &v46PipelineStage{}, &v46PipelineTask{})
}
