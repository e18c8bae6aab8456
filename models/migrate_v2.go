package models

import (
	"time"

	"gorm.io/gorm"
)

// Frozen structs of migration 2.
type (
	v2User struct {
		ID           int64
		Name         string `gorm:"size:100;not null;uniqueIndex"`
		PasswordHash string `gorm:"size:200;not null"`
		Role         string `gorm:"size:20;not null"`
		Disabled     bool   `gorm:"not null"`
		CreatedAt    time.Time
	}
	v2ProjectMember struct {
		ProjectID int64     `gorm:"primaryKey;autoIncrement:false"`
		Project   v1Project `gorm:"constraint:OnDelete:CASCADE"`
		UserID    int64     `gorm:"primaryKey;autoIncrement:false;index"`
		User      v2User    `gorm:"constraint:OnDelete:CASCADE"`
		Role      string    `gorm:"size:20;not null"`
	}
	v2Session struct {
		ID         int64
		TokenHash  string `gorm:"size:64;not null;uniqueIndex"`
		UserID     int64  `gorm:"not null;index"`
		User       v2User `gorm:"constraint:OnDelete:CASCADE"`
		CreatedAt  time.Time
		LastSeenAt time.Time
		ExpiresAt  time.Time `gorm:"not null"`
	}
	v2APIToken struct {
		ID         int64
		UserID     int64  `gorm:"not null;index"`
		User       v2User `gorm:"constraint:OnDelete:CASCADE"`
		Name       string `gorm:"size:100;not null"`
		TokenHash  string `gorm:"size:64;not null;uniqueIndex"`
		Scope      string `gorm:"size:20;not null"`
		CreatedAt  time.Time
		LastUsedAt *time.Time
		RevokedAt  *time.Time
	}
	v2Quota struct {
		ID              int64
		ProjectID       int64     `gorm:"not null;uniqueIndex:idx_quotas_project_spec,priority:1"`
		Project         v1Project `gorm:"constraint:OnDelete:CASCADE"`
		Spec            string    `gorm:"size:100;not null;uniqueIndex:idx_quotas_project_spec,priority:2"`
		MaxGPUs         int       `gorm:"column:max_gpus;not null"`
		GuaranteedGPUs  int       `gorm:"column:guaranteed_gpus;not null"`
		BudgetCardHours int64     `gorm:"not null"`
		StartsAt        time.Time `gorm:"not null"`
		EndsAt          time.Time `gorm:"not null"`
		OverflowAllowed bool      `gorm:"not null"`
		OverflowRateFen int64     `gorm:"not null"`
		OverrideMaxGPUs int       `gorm:"column:override_max_gpus;not null"`
		OverrideBegins  *time.Time
		OverrideEnds    *time.Time
		UpdatedAt       time.Time
	}
	v2QuotaRequest struct {
		ID          int64
		ProjectID   int64     `gorm:"not null;index"`
		Project     v1Project `gorm:"constraint:OnDelete:CASCADE"`
		Spec        string    `gorm:"size:100;not null"`
		Kind        string    `gorm:"size:20;not null"`
		Change      string    `gorm:"size:2000;not null"`
		Reason      string    `gorm:"size:2000;not null"`
		RequestedBy int64     `gorm:"not null"`
		State       string    `gorm:"size:20;not null;index"`
		DecidedBy   *int64
		DecidedAt   *time.Time
		Comment     string `gorm:"size:2000;not null"`
		CreatedAt   time.Time
	}
	v2Notification struct {
		ID        int64
		UserID    int64  `gorm:"not null;uniqueIndex:idx_notifications_user_key,priority:1"`
		User      v2User `gorm:"constraint:OnDelete:CASCADE"`
		Key       string `gorm:"size:200;not null;uniqueIndex:idx_notifications_user_key,priority:2"`
		Kind      string `gorm:"size:50;not null"`
		Message   string `gorm:"size:2000;not null"`
		CreatedAt time.Time
		ReadAt    *time.Time
	}
	v2AuditEntry struct {
		ID        int64
		At        time.Time `gorm:"not null;index"`
		Actor     string    `gorm:"size:100;not null"`
		Action    string    `gorm:"size:50;not null"`
		ProjectID *int64    `gorm:"index"`
		Subject   string    `gorm:"size:500;not null"`
		Before    string    `gorm:"not null"`
		After     string    `gorm:"not null"`
	}
)

// v2ProjectTags adds tags to projects, for grouping bills.
type v2ProjectTags struct {
	Tags string `gorm:"size:500;not null;default:''"`
}

func (v2ProjectTags) TableName() string { return "projects" }

func (v2User) TableName() string          { return "users" }
func (v2ProjectMember) TableName() string { return "project_members" }
func (v2Session) TableName() string       { return "sessions" }
func (v2APIToken) TableName() string      { return "api_tokens" }
func (v2Quota) TableName() string         { return "quotas" }
func (v2QuotaRequest) TableName() string  { return "quota_requests" }
func (v2Notification) TableName() string  { return "notifications" }
func (v2AuditEntry) TableName() string    { return "audit_log" }

func migrateV2(tx *gorm.DB) error {
	err := tx.Migrator().CreateTable(&v2User{}, &v2ProjectMember{}, &v2Session{}, &v2APIToken{}, &v2Quota{},
		&v2QuotaRequest{}, &v2Notification{}, &v2AuditEntry{})
	if err != nil {
		return err
	}
	return tx.Migrator().AddColumn(&v2ProjectTags{}, "Tags")
}
