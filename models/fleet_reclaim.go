package models

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// TaskReclaim is the idle-reclaim state of a running task: the notice its owner got, and the
// "keep" answers.
type TaskReclaim struct {
	TaskID int64 `gorm:"primaryKey;autoIncrement:false"`
	// NoticeAt is when the pending idle notice was sent; nil when none is pending.
	NoticeAt *time.Time
	// KeptUntil: the owner asked to keep the task's cards until then.
	KeptUntil *time.Time
	// KeepDay (YYYY-MM-DD in the configured zone) and KeepsOnDay count the keeps of a day.
	KeepDay     string
	KeepsOnDay  int
	ReclaimedAt *time.Time
}

// TaskReclaims returns the reclaim state of the tasks that hold cards, by task id.
func (s *Store) TaskReclaims(ctx context.Context) (map[int64]TaskReclaim, error) {
	var rows []TaskReclaim
	err := s.db.WithContext(ctx).Table("task_reclaims").Select("task_reclaims.*").
		Joins("JOIN tasks ON tasks.id = task_reclaims.task_id").
		Where("tasks.state IN ?", []string{TaskStarting, TaskRunning}).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("models: task reclaims: %w", err)
	}
	out := make(map[int64]TaskReclaim, len(rows))
	for _, r := range rows {
		out[r.TaskID] = r
	}
	return out, nil
}

// SetReclaimNotice records that the owner of a task was told at now that its idle cards will
// be reclaimed unless kept.
func (s *Store) SetReclaimNotice(ctx context.Context, taskID int64, now time.Time) error {
	now = UTC(now)
	row := TaskReclaim{TaskID: taskID, NoticeAt: &now}
	err := s.db.WithContext(ctx).Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "task_id"}},
		DoUpdates: clause.AssignmentColumns([]string{"notice_at"})}).Create(&row).Error
	if err != nil {
		return fmt.Errorf("models: reclaim notice of task %d: %w", taskID, err)
	}
	return nil
}

// ClearReclaimNotice withdraws a task's pending notice (its cards are busy again).
func (s *Store) ClearReclaimNotice(ctx context.Context, taskID int64) error {
	err := s.db.WithContext(ctx).Model(&TaskReclaim{}).Where("task_id = ?", taskID).Update("notice_at", nil).Error
	if err != nil {
		return fmt.Errorf("models: clear reclaim notice of task %d: %w", taskID, err)
	}
	return nil
}

// KeepTask answers a notice with "keep": the task keeps its cards for keepFor and its notice
// is withdrawn. A day (in loc) allows at most maxPerDay keeps per task; past it, and for a
// task that holds no cards, it returns ErrConflict. Each keep is logged as a task event.
func (s *Store) KeepTask(ctx context.Context, taskID int64, by string, keepFor time.Duration, maxPerDay int, loc *time.Location, now time.Time) (time.Time, error) {
	now = UTC(now)
	if loc == nil {
		loc = time.UTC
	}
	day := now.In(loc).Format(time.DateOnly)
	until := now.Add(keepFor)
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var t Task
		// Locked: two keeps at once must both count against the day's limit.
		if err := forUpdate(tx).Select("id, state").Where("id = ?", taskID).Take(&t).Error; err != nil {
			return notFound(fmt.Sprintf("task %d", taskID), err)
		}
		if t.State != TaskStarting && t.State != TaskRunning {
			return fmt.Errorf("models: task %d is %s: %w", taskID, t.State, ErrConflict)
		}
		var r TaskReclaim
		err := tx.Where("task_id = ?", taskID).Take(&r).Error
		if err != nil && !errors.Is(err, gorm.ErrRecordNotFound) {
			return err
		}
		if r.KeepDay != day {
			r.KeepsOnDay = 0
		}
		if r.KeepsOnDay >= maxPerDay {
			return fmt.Errorf("models: task %d was kept %d times on %s, the most a day allows: %w", taskID, r.KeepsOnDay, day, ErrConflict)
		}
		r = TaskReclaim{TaskID: taskID, KeptUntil: &until, KeepDay: day, KeepsOnDay: r.KeepsOnDay + 1}
		err = tx.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "task_id"}},
			DoUpdates: clause.AssignmentColumns([]string{"notice_at", "kept_until", "keep_day", "keeps_on_day"})}).Create(&r).Error
		if err != nil {
			return err
		}
		reason := fmt.Sprintf("kept until %s by %s (keep %d of %d on %s)", until.Format(time.RFC3339), by, r.KeepsOnDay, maxPerDay, day)
		return tx.Create(&TaskEvent{TaskID: taskID, At: now, From: t.State, To: t.State, Reason: truncate(reason, 500)}).Error
	})
	if err != nil {
		if errors.Is(err, ErrConflict) || errors.Is(err, ErrNotFound) {
			return time.Time{}, err
		}
		return time.Time{}, fmt.Errorf("models: keep task %d: %w", taskID, err)
	}
	return until, nil
}

// ReclaimTask stops a task whose cards are reclaimed: the node is asked to stop it and it
// ends reclaimed. It returns ErrConflict when the task no longer runs.
func (s *Store) ReclaimTask(ctx context.Context, taskID int64, reason string, now time.Time) error {
	now = UTC(now)
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := requestStop(tx, taskID, TaskReclaimed, truncate(reason, 500), now); err != nil {
			return err
		}
		row := TaskReclaim{TaskID: taskID, ReclaimedAt: &now}
		return tx.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "task_id"}},
			DoUpdates: clause.AssignmentColumns([]string{"reclaimed_at"})}).Create(&row).Error
	})
	if err != nil && !errors.Is(err, ErrConflict) && !errors.Is(err, ErrNotFound) {
		return fmt.Errorf("models: reclaim task %d: %w", taskID, err)
	}
	return err
}
