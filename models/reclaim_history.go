package models

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// ReclaimEdit is a change of a project's idle-reclaim override as the audit log records it
// (project-reclaim, by SetReclaimOverride): who made it and when, and the override before
// and after.
type ReclaimEdit struct {
	ID            int64
	At            time.Time
	Actor         string
	ProjectID     int64
	Before, After ReclaimOverride
}

// ReclaimEdits returns the idle-reclaim override changes of project projectID (every
// project's when 0) made in [from, to) (unbounded when zero), newest first, at most 10,000.
func (s *Store) ReclaimEdits(ctx context.Context, projectID int64, from, to time.Time) ([]ReclaimEdit, error) {
	f := AuditFilter{Action: AuditProjectReclaim, From: from, To: to, Limit: 10000}
	if projectID != 0 {
		f.ProjectID = &projectID
	}
	es, err := s.AuditLog(ctx, f)
	if err != nil {
		return nil, err
	}
	out := make([]ReclaimEdit, 0, len(es))
	for _, e := range es {
		c := ReclaimEdit{ID: e.ID, At: e.At.UTC(), Actor: e.Actor}
		if e.ProjectID != nil {
			c.ProjectID = *e.ProjectID
		}
		if err := json.Unmarshal([]byte(e.Before), &c.Before); err != nil {
			return nil, fmt.Errorf("models: reclaim change %d: before: %w", e.ID, err)
		}
		if err := json.Unmarshal([]byte(e.After), &c.After); err != nil {
			return nil, fmt.Errorf("models: reclaim change %d: after: %w", e.ID, err)
		}
		out = append(out, c)
	}
	return out, nil
}
