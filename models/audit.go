package models

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// AuditEntry records who did what and when, with before and after values. The log is
// append-only: nothing updates or deletes its rows.
type AuditEntry struct {
	ID        int64
	At        time.Time
	Actor     string
	Action    string
	ProjectID *int64
	Subject   string
	Before    string
	After     string
}

func (AuditEntry) TableName() string { return "audit_log" }

// Audit actions.
const (
	AuditLogin         = "login"
	AuditLoginFailed   = "login-failed"
	AuditTokenCreate   = "token-create"
	AuditTokenRevoke   = "token-revoke"
	AuditRoleChange    = "role-change"
	AuditQuotaChange   = "quota-change"
	AuditRequestCreate = "request-create"
	AuditApprove       = "approve"
	AuditReject        = "reject"
	AuditTaskCancel    = "task-cancel"
	AuditUserCreate    = "user-create"
)

// audit appends an entry inside tx; before and after are stored as JSON.
func audit(tx *gorm.DB, at time.Time, actor, action string, projectID *int64, subject string, before, after any) error {
	b, _ := json.Marshal(before)
	a, _ := json.Marshal(after)
	e := AuditEntry{At: UTC(at), Actor: actor, Action: action, ProjectID: projectID, Subject: truncate(subject, 500),
		Before: string(b), After: string(a)}
	return tx.Create(&e).Error
}

// Audit appends an entry to the audit log.
func (s *Store) Audit(ctx context.Context, at time.Time, actor, action string, projectID *int64, subject string, before, after any) error {
	if err := audit(s.db.WithContext(ctx), at, actor, action, projectID, subject, before, after); err != nil {
		return fmt.Errorf("models: audit %s: %w", action, err)
	}
	return nil
}

// AuditFilter narrows AuditLog: ProjectIDs non-nil limits to those projects.
type AuditFilter struct {
	ProjectIDs []int64
	Limit      int
}

// AuditLog returns entries, newest first.
func (s *Store) AuditLog(ctx context.Context, f AuditFilter) ([]AuditEntry, error) {
	if f.Limit <= 0 || f.Limit > 1000 {
		f.Limit = 200
	}
	q := s.db.WithContext(ctx).Order("id DESC").Limit(f.Limit)
	if f.ProjectIDs != nil {
		q = q.Where("project_id IN ?", append(f.ProjectIDs, -1))
	}
	var out []AuditEntry
	if err := q.Find(&out).Error; err != nil {
		return nil, fmt.Errorf("models: audit log: %w", err)
	}
	return out, nil
}
