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
	AuditLogin       = "login"
	AuditLoginFailed = "login-failed"
	AuditTokenCreate = "token-create"
	AuditTokenRevoke = "token-revoke"
	AuditRoleChange  = "role-change"
	AuditQuotaChange = "quota-change"
	// AuditProjectReclaim: a project's idle-reclaim override changed.
	AuditProjectReclaim = "project-reclaim"
	AuditRequestCreate  = "request-create"
	AuditApprove        = "approve"
	AuditReject         = "reject"
	AuditTaskCancel     = "task-cancel"
	AuditUserCreate     = "user-create"
	// AuditTemplateRollback: a template's earlier version made current again.
	AuditTemplateRollback = "template-rollback"
	// AuditJoinTokenCreate: an admin issued a single-use join token.
	AuditJoinTokenCreate = "join-token-create"
	// AuditNodeClaimRefused: a registration that would have taken a registered node's
	// hostname, machine id or GPUs was refused.
	AuditNodeClaimRefused = "node-claim-refused"
	// AuditPipelineCancel: a running pipeline cancelled (each of its tasks cancelled is
	// audited as a task-cancel of its own).
	AuditPipelineCancel = "pipeline-cancel"
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

// AuditFilter narrows AuditLog: ProjectIDs non-nil limits to those projects; Actor, Action
// and ProjectID (non-nil) keep the entries of that actor, action and project; From and To
// (non-zero) the entries in [From, To).
type AuditFilter struct {
	ProjectIDs []int64
	Actor      string
	Action     string
	ProjectID  *int64
	From, To   time.Time
	Limit      int
}

// where applies the filter's conditions to q.
func (f AuditFilter) where(q *gorm.DB) *gorm.DB {
	if f.ProjectIDs != nil {
		q = q.Where("project_id IN ?", append(f.ProjectIDs, -1))
	}
	if f.Actor != "" {
		q = q.Where("actor = ?", f.Actor)
	}
	if f.Action != "" {
		q = q.Where("action = ?", f.Action)
	}
	if f.ProjectID != nil {
		q = q.Where("project_id = ?", *f.ProjectID)
	}
	if !f.From.IsZero() {
		q = q.Where("at >= ?", UTC(f.From))
	}
	if !f.To.IsZero() {
		q = q.Where("at < ?", UTC(f.To))
	}
	return q
}

// AuditLog returns entries, newest first: at most f.Limit (200 when unset, 10,000 at most).
func (s *Store) AuditLog(ctx context.Context, f AuditFilter) ([]AuditEntry, error) {
	if f.Limit <= 0 || f.Limit > 10000 {
		f.Limit = 200
	}
	var out []AuditEntry
	if err := f.where(s.db.WithContext(ctx)).Order("id DESC").Limit(f.Limit).Find(&out).Error; err != nil {
		return nil, fmt.Errorf("models: audit log: %w", err)
	}
	return out, nil
}

// AuditActions returns the actions the log holds for the given projects (all when nil), by
// name: the choices of the audit page's filter.
func (s *Store) AuditActions(ctx context.Context, projectIDs []int64) ([]string, error) {
	var out []string
	err := AuditFilter{ProjectIDs: projectIDs}.where(s.db.WithContext(ctx).Model(&AuditEntry{})).
		Distinct("action").Order("action").Pluck("action", &out).Error
	if err != nil {
		return nil, fmt.Errorf("models: audit actions: %w", err)
	}
	return out, nil
}
