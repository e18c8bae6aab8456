package models

import (
	"context"
	"fmt"
	"time"
)

// NotifyUser sends the named user a notification once (by key) and reports whether it is
// new. It returns ErrNotFound when no user has the name (a task's owner need not be one).
func (s *Store) NotifyUser(ctx context.Context, name, key, kind, msg string, now time.Time) (bool, error) {
	u, err := s.UserByName(ctx, name)
	if err != nil {
		return false, err
	}
	fresh, err := notifyNew(s.db.WithContext(ctx), []int64{u.ID}, key, kind, msg, now)
	if err != nil {
		return false, fmt.Errorf("models: notify user %q: %w", name, err)
	}
	return len(fresh) > 0, nil
}

// ReclaimNotice is a running task whose owner was warned that its idle cards will be
// reclaimed, or who kept them: the task with its reclaim state.
type ReclaimNotice struct {
	TaskRow
	NoticeAt   *time.Time
	KeptUntil  *time.Time
	KeepDay    string
	KeepsOnDay int
}

// ReclaimNotices returns owner's running tasks with a pending idle notice or a keep, oldest
// task first.
func (s *Store) ReclaimNotices(ctx context.Context, owner string) ([]ReclaimNotice, error) {
	var out []ReclaimNotice
	err := s.db.WithContext(ctx).Table("tasks").
		Select("tasks.*, projects.name AS project, task_reclaims.notice_at, task_reclaims.kept_until, "+
			"task_reclaims.keep_day, task_reclaims.keeps_on_day").
		Joins("JOIN projects ON projects.id = tasks.project_id").
		Joins("JOIN task_reclaims ON task_reclaims.task_id = tasks.id").
		Where("tasks.owner = ? AND tasks.state IN ?", owner, []string{TaskStarting, TaskRunning}).
		Where("(task_reclaims.notice_at IS NOT NULL OR task_reclaims.kept_until IS NOT NULL)").
		Order("tasks.id").Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("models: reclaim notices of %q: %w", owner, err)
	}
	return out, nil
}
