package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// ReclaimOverride is a project's own idle-reclaim settings, set by its lead over those of
// the pools its tasks run in. A zero field keeps the pool's setting.
type ReclaimOverride struct {
	// Never: the project's tasks are never reclaimed.
	Never bool `json:"never"`
	// IdleS: seconds all of a task's cards stay idle before its owner gets a notice.
	IdleS int64 `json:"idle_s"`
	// GraceS: seconds a notice waits for an answer before the task is stopped.
	GraceS int64 `json:"grace_s"`
	// KeepForS: seconds a "keep" answer holds the cards; KeepsPerDay caps the keeps a day.
	KeepForS    int64 `json:"keep_for_s"`
	KeepsPerDay int   `json:"keeps_per_day"`
	// SetupGraceS: seconds after a task's start before its idle time counts.
	SetupGraceS int64 `json:"setup_grace_s"`
}

// Bounds of a reclaim override: a set duration is a minute to 30 days, keeps 1 to 24 a day.
const (
	minOverrideSeconds = 60
	maxKeepsPerDay     = 24
)

// Validate checks each set field against its range; errors are *FieldError with the JSON
// field name.
func (o ReclaimOverride) Validate() error {
	for _, d := range []struct {
		name string
		s    int64
	}{{"idle_s", o.IdleS}, {"grace_s", o.GraceS}, {"keep_for_s", o.KeepForS}, {"setup_grace_s", o.SetupGraceS}} {
		if d.s != 0 && (d.s < minOverrideSeconds || d.s > maxPolicySeconds) {
			return fieldErr(d.name, "must be 0 (the pool's) or %d to %d seconds, got %d", minOverrideSeconds, maxPolicySeconds, d.s)
		}
	}
	if o.KeepsPerDay < 0 || o.KeepsPerDay > maxKeepsPerDay {
		return fieldErr("keeps_per_day", "must be 0 (the pool's) to %d, got %d", maxKeepsPerDay, o.KeepsPerDay)
	}
	return nil
}

// SetReclaimOverride replaces a project's idle-reclaim override, recording the change in the
// audit log.
func (s *Store) SetReclaimOverride(ctx context.Context, actor string, projectID int64, o ReclaimOverride, now time.Time) error {
	if err := o.Validate(); err != nil {
		return err
	}
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var p Project
		if err := forUpdate(tx).Where("id = ?", projectID).Take(&p).Error; err != nil {
			return notFound(fmt.Sprintf("project %d", projectID), err)
		}
		err := tx.Model(&Project{}).Where("id = ?", projectID).Select("reclaim_never", "reclaim_idle_s", "reclaim_grace_s",
			"reclaim_keep_for_s", "reclaim_keeps_per_day", "reclaim_setup_grace_s").Updates(&Project{Reclaim: o}).Error
		if err != nil {
			return err
		}
		return audit(tx, now, actor, AuditProjectReclaim, &projectID, "project "+p.Name, p.Reclaim, o)
	})
	if err != nil && !errors.Is(err, ErrNotFound) {
		return fmt.Errorf("models: set reclaim override of project %d: %w", projectID, err)
	}
	return err
}

// ReclaimOverrides returns the override of every project that has one, by project id.
func (s *Store) ReclaimOverrides(ctx context.Context) (map[int64]ReclaimOverride, error) {
	var ps []Project
	if err := s.db.WithContext(ctx).Find(&ps).Error; err != nil {
		return nil, fmt.Errorf("models: reclaim overrides: %w", err)
	}
	out := make(map[int64]ReclaimOverride)
	for _, p := range ps {
		if p.Reclaim != (ReclaimOverride{}) {
			out[p.ID] = p.Reclaim
		}
	}
	return out, nil
}

// ReclaimSettings is what a task's idle-reclaim policy comes from: its pool's settings (nil
// for a pool without a configuration) and its project's override.
type ReclaimSettings struct {
	Pool     *PoolConfig
	Override ReclaimOverride
}

// TaskReclaimSettings returns the reclaim settings of a task: those of the pool of its first
// node, and its project's override.
func (s *Store) TaskReclaimSettings(ctx context.Context, taskID int64) (ReclaimSettings, error) {
	db := s.db.WithContext(ctx)
	var out ReclaimSettings
	var p Project
	err := db.Where("id = (?)", db.Model(&Task{}).Select("project_id").Where("id = ?", taskID)).Take(&p).Error
	if err != nil {
		return out, notFound(fmt.Sprintf("task %d", taskID), err)
	}
	out.Override = p.Reclaim
	var configs []string
	err = db.Table("allocations").Select("pool_policies.config").Joins("JOIN nodes ON nodes.id = allocations.node_id").
		Joins("JOIN pool_policies ON pool_policies.pool_id = nodes.pool_id").Where("allocations.task_id = ?", taskID).
		Order("allocations.id").Limit(1).Pluck("pool_policies.config", &configs).Error
	if err != nil {
		return out, fmt.Errorf("models: reclaim settings of task %d: %w", taskID, err)
	}
	if len(configs) == 1 {
		out.Pool = new(PoolConfig)
		if err := json.Unmarshal([]byte(configs[0]), out.Pool); err != nil {
			return out, fmt.Errorf("models: reclaim settings of task %d: %w", taskID, err)
		}
	}
	return out, nil
}
