package models

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// QuotaEdit is a change of a project's quota as the audit log records it (quota-change,
// by an admin's edit or an approved request): who made it and when, and the quota before
// (nil when there was none) and after.
type QuotaEdit struct {
	ID        int64
	At        time.Time
	Actor     string
	ProjectID int64
	Subject   string
	Before    *Quota
	After     Quota
	// RequestID is the approved request that made the change; 0 for an admin's edit.
	RequestID int64
}

// byRequest joins a quota change's subject to the request that made it: "quota A100-80G by
// request 12".
const byRequest = " by request "

// QuotaEdits returns the quota changes of project projectID (every project's when 0)
// made in [from, to) (unbounded when zero), newest first, at most 10,000.
func (s *Store) QuotaEdits(ctx context.Context, projectID int64, from, to time.Time) ([]QuotaEdit, error) {
	f := AuditFilter{Action: AuditQuotaChange, From: from, To: to, Limit: 10000}
	if projectID != 0 {
		f.ProjectID = &projectID
	}
	es, err := s.AuditLog(ctx, f)
	if err != nil {
		return nil, err
	}
	out := make([]QuotaEdit, 0, len(es))
	for _, e := range es {
		c := QuotaEdit{ID: e.ID, At: e.At.UTC(), Actor: e.Actor, Subject: e.Subject}
		if _, id, ok := strings.Cut(e.Subject, byRequest); ok {
			c.RequestID, _ = strconv.ParseInt(id, 10, 64)
		}
		if e.ProjectID != nil {
			c.ProjectID = *e.ProjectID
		}
		if err := json.Unmarshal([]byte(e.Before), &c.Before); err != nil {
			return nil, fmt.Errorf("models: quota change %d: before: %w", e.ID, err)
		}
		if err := json.Unmarshal([]byte(e.After), &c.After); err != nil {
			return nil, fmt.Errorf("models: quota change %d: after: %w", e.ID, err)
		}
		out = append(out, c)
	}
	return out, nil
}
