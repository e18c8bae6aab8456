package models

import (
	"context"
	"fmt"
	"time"
)

// The records the archive keeps are read here in pages, after the latest one it has
// (ArchiveMark): issued bills, template and pool versions by id, decisions by time, plans
// by day.

// IssuedBillsAfter returns up to limit issued bills of id above after, by id.
func (s *Store) IssuedBillsAfter(ctx context.Context, after int64, limit int) ([]IssuedBill, error) {
	var out []IssuedBill
	if err := s.db.WithContext(ctx).Where("id > ?", after).Order("id").Limit(limit).Find(&out).Error; err != nil {
		return nil, fmt.Errorf("models: issued bills after %d: %w", after, err)
	}
	return out, nil
}

// TemplateVersionOf is a template's version with the names of its template and project.
type TemplateVersionOf struct {
	TaskTemplateVersion
	Template string
	Project  string
}

// TemplateVersionsAfter returns up to limit template versions of id above after, by id.
func (s *Store) TemplateVersionsAfter(ctx context.Context, after int64, limit int) ([]TemplateVersionOf, error) {
	var out []TemplateVersionOf
	err := s.db.WithContext(ctx).Table("task_template_versions v").
		Select("v.*, t.name AS template, p.name AS project").
		Joins("JOIN task_templates t ON t.id = v.template_id").Joins("JOIN projects p ON p.id = t.project_id").
		Where("v.id > ?", after).Order("v.id").Limit(limit).Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("models: template versions after %d: %w", after, err)
	}
	return out, nil
}

// PoolVersionOf is a pool's settings version with the pool's name.
type PoolVersionOf struct {
	PoolPolicyVersion
	Pool string
}

// PoolVersionsAfter returns up to limit pool settings versions of id above after, by id.
func (s *Store) PoolVersionsAfter(ctx context.Context, after int64, limit int) ([]PoolVersionOf, error) {
	var out []PoolVersionOf
	err := s.db.WithContext(ctx).Table("pool_policy_versions v").Select("v.*, p.name AS pool").
		Joins("JOIN pools p ON p.id = v.pool_id").Where("v.id > ?", after).Order("v.id").Limit(limit).Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("models: pool versions after %d: %w", after, err)
	}
	return out, nil
}

// DecisionOf is a decided quota request with the names of its project, of who asked and of
// who decided.
type DecisionOf struct {
	QuotaRequest
	Project   string
	Requester string
	Decider   string
}

// DecisionsSince returns up to limit quota requests decided at or after since, by the time
// of their decision then id.
func (s *Store) DecisionsSince(ctx context.Context, since time.Time, limit int) ([]DecisionOf, error) {
	var out []DecisionOf
	err := s.db.WithContext(ctx).Table("quota_requests r").
		Select("r.*, p.name AS project, COALESCE(a.name, '') AS requester, COALESCE(d.name, '') AS decider").
		Joins("JOIN projects p ON p.id = r.project_id").Joins("LEFT JOIN users a ON a.id = r.requested_by").
		Joins("LEFT JOIN users d ON d.id = r.decided_by").
		Where("r.decided_at IS NOT NULL AND r.decided_at >= ?", UTC(since)).Order("r.decided_at, r.id").Limit(limit).Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("models: decisions since %s: %w", since, err)
	}
	return out, nil
}

// TaskPlan is what a task asked for and what it took: its cards, estimate, window and the
// card-seconds it held.
type TaskPlan struct {
	Task
	Project     string
	CardSeconds int64
}

// TaskPlansEnded returns the tasks that ended in [from, to), by id, each with the
// card-seconds its allocations held.
func (s *Store) TaskPlansEnded(ctx context.Context, from, to time.Time) ([]TaskPlan, error) {
	var out []TaskPlan
	db := s.db.WithContext(ctx)
	err := db.Table("tasks t").Select("t.*, p.name AS project").Joins("JOIN projects p ON p.id = t.project_id").
		Where("t.ended_at >= ? AND t.ended_at < ?", UTC(from), UTC(to)).Order("t.id").Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("models: tasks ended %s to %s: %w", from, to, err)
	}
	at := make(map[int64]int, len(out))
	ids := make([]int64, len(out))
	for i, t := range out {
		at[t.ID], ids[i] = i, t.ID
	}
	for len(ids) > 0 {
		n := min(len(ids), 500)
		var allocs []Allocation
		if err := db.Where("task_id IN ? AND ended_at IS NOT NULL", ids[:n]).Find(&allocs).Error; err != nil {
			return nil, fmt.Errorf("models: allocations of tasks ended %s to %s: %w", from, to, err)
		}
		for _, a := range allocs {
			out[at[a.TaskID]].CardSeconds += int64(a.EndedAt.Sub(a.StartedAt) / time.Second)
		}
		ids = ids[n:]
	}
	return out, nil
}

// FirstTaskEnd is when the first task ended (zero when none has).
func (s *Store) FirstTaskEnd(ctx context.Context) (time.Time, error) {
	var t Task
	err := s.db.WithContext(ctx).Select("ended_at").Where("ended_at IS NOT NULL").Order("ended_at").Limit(1).Find(&t).Error
	if err != nil || t.EndedAt == nil {
		return time.Time{}, err
	}
	return t.EndedAt.UTC(), nil
}

// Backup writes a copy of a SQLite database to path, consistent while the server runs
// (VACUUM INTO). With Postgres it is ErrNotSQLite: pg_dump makes that backup.
func (s *Store) Backup(ctx context.Context, path string) error {
	if s.postgres {
		return ErrNotSQLite
	}
	if err := s.db.WithContext(ctx).Exec("VACUUM INTO ?", path).Error; err != nil {
		return fmt.Errorf("models: backup to %s: %w", path, err)
	}
	return nil
}

// ErrNotSQLite is Backup's answer on Postgres.
var ErrNotSQLite = fmt.Errorf("models: not a SQLite database")
