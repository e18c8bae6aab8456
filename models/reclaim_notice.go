package models

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"gorm.io/gorm"
)

// NotifyOwnerAndLeads sends a notification about a task once (by key) to its owner, when the
// owner has an account, and to each lead of its project, one each when the owner leads it
// too, and reports whether anyone received it for the first time. It returns ErrNotFound when
// none of them has an account (a task's owner need not be one, nor a project have a lead).
func (s *Store) NotifyOwnerAndLeads(ctx context.Context, taskID int64, key, kind, msg string, now time.Time) (bool, error) {
	var fresh []int64
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var owner, leads []int64
		err := tx.Table("users").Joins("JOIN tasks ON tasks.owner = users.name").Where("tasks.id = ?", taskID).
			Pluck("users.id", &owner).Error
		if err != nil {
			return err
		}
		err = tx.Table("project_members").Joins("JOIN tasks ON tasks.project_id = project_members.project_id").
			Where("tasks.id = ? AND project_members.role = ?", taskID, ProjectRoleLead).
			Pluck("project_members.user_id", &leads).Error
		if err != nil {
			return err
		}
		ids := slices.Compact(slices.Sorted(slices.Values(append(owner, leads...))))
		if len(ids) == 0 {
			return fmt.Errorf("models: task %d: nobody to notify: %w", taskID, ErrNotFound)
		}
		fresh, err = notifyNew(tx, ids, key, kind, msg, now)
		return err
	})
	if err != nil && !errors.Is(err, ErrNotFound) {
		return false, fmt.Errorf("models: notify owner and leads of task %d: %w", taskID, err)
	}
	return len(fresh) > 0, err
}

// ReclaimNotice is a running task whose owner and leads were warned that its idle cards will
// be reclaimed, or which one of them kept: the task with its reclaim state.
type ReclaimNotice struct {
	TaskRow
	NoticeAt   *time.Time
	KeptUntil  *time.Time
	KeepDay    string
	KeepsOnDay int
}

// ReclaimNotices returns the running tasks with a pending idle notice or a keep that the user
// named user may answer (their own tasks, every task of the projects they lead, every task
// for an admin: see answerers), oldest task first.
func (s *Store) ReclaimNotices(ctx context.Context, user string) ([]ReclaimNotice, error) {
	var out []ReclaimNotice
	err := s.db.WithContext(ctx).Table("tasks").
		Select("tasks.*, projects.name AS project, task_reclaims.notice_at, task_reclaims.kept_until, "+
			"task_reclaims.keep_day, task_reclaims.keeps_on_day").
		Joins("JOIN projects ON projects.id = tasks.project_id").
		Joins("JOIN task_reclaims ON task_reclaims.task_id = tasks.id").
		Where("tasks.state IN ?", []string{TaskStarting, TaskRunning}).
		Where("(task_reclaims.notice_at IS NOT NULL OR task_reclaims.kept_until IS NOT NULL)").
		Where(answerers, user, false).
		Order("tasks.id").Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("models: reclaim notices for %q: %w", user, err)
	}
	return out, nil
}
