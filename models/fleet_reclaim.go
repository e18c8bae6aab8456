package models

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// TaskReclaim is the idle-reclaim state of a running task: the notice its owner and its
// project's leads got, and the "keep" answers.
type TaskReclaim struct {
	TaskID int64 `gorm:"primaryKey;autoIncrement:false"`
	// NoticeAt is when the pending idle notice was sent; nil when none is pending.
	NoticeAt *time.Time
	// KeptUntil: the owner or a lead asked to keep the task's cards until then.
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

// SetReclaimNotice records that a task's owner and leads were told at now that its idle cards
// will be reclaimed unless kept.
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

// KeepTask answers a notice with "keep" on behalf of the user named by: the task keeps its
// cards for keepFor and its notice is withdrawn. Only one who may answer the task's idle
// notices (see mayAnswer) keeps it; anyone else gets ErrForbidden. A day (in loc) allows at
// most maxPerDay keeps per task; past it, and for a task that holds no cards, it returns
// ErrConflict. Each keep is logged as a task event.
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
		if err := mayAnswer(tx, taskID, by); err != nil {
			return err
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
		if errors.Is(err, ErrConflict) || errors.Is(err, ErrNotFound) || errors.Is(err, ErrForbidden) {
			return time.Time{}, err
		}
		return time.Time{}, fmt.Errorf("models: keep task %d: %w", taskID, err)
	}
	return until, nil
}

// ReclaimTask stops a task whose cards are reclaimed: the node is asked to stop it and it
// ends reclaimed. It returns ErrConflict when the task no longer runs.
func (s *Store) ReclaimTask(ctx context.Context, taskID int64, reason string, now time.Time) error {
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		return reclaim(tx, taskID, reason, now)
	})
	if err != nil && !errors.Is(err, ErrConflict) && !errors.Is(err, ErrNotFound) {
		return fmt.Errorf("models: reclaim task %d: %w", taskID, err)
	}
	return err
}

// ReleaseTask answers a notice with "release now" on behalf of the user named by: the task
// is reclaimed at once, its reason naming by. Only one who may answer the task's idle notices
// (see mayAnswer) releases it, checked in the same transaction; anyone else gets
// ErrForbidden. It returns ErrConflict when the task no longer runs.
func (s *Store) ReleaseTask(ctx context.Context, taskID int64, by string, now time.Time) error {
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := mayAnswer(tx, taskID, by); err != nil {
			return err
		}
		return reclaim(tx, taskID, ReleasedReason(by), now)
	})
	if err != nil && !errors.Is(err, ErrConflict) && !errors.Is(err, ErrNotFound) && !errors.Is(err, ErrForbidden) {
		return fmt.Errorf("models: release task %d: %w", taskID, err)
	}
	return err
}

// reclaim asks the node to stop the task, to end reclaimed for reason, and records when.
func reclaim(tx *gorm.DB, taskID int64, reason string, now time.Time) error {
	now = UTC(now)
	if err := requestStop(tx, taskID, TaskReclaimed, truncate(reason, 500), now); err != nil {
		return err
	}
	row := TaskReclaim{TaskID: taskID, ReclaimedAt: &now}
	return tx.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "task_id"}},
		DoUpdates: clause.AssignmentColumns([]string{"reclaimed_at"})}).Create(&row).Error
}

// answerers is the condition on tasks (SQL, with the user's name as its one argument) that
// the user may answer their idle notices with "keep" or "release now": an admin any task; a
// member of the task's project the tasks they own, and a lead of it every task of it. A
// disabled user none.
const answerers = `EXISTS (SELECT 1 FROM users u WHERE u.name = ? AND u.disabled = ? AND (u.role = '` + RoleAdmin + `' OR
	EXISTS (SELECT 1 FROM project_members pm WHERE pm.user_id = u.id AND pm.project_id = tasks.project_id AND
		(pm.role = '` + ProjectRoleLead + `' OR tasks.owner = u.name))))`

// mayAnswer returns ErrForbidden unless the user named by may answer the task's idle notices
// (answerers), ErrNotFound when there is no such task.
func mayAnswer(tx *gorm.DB, taskID int64, by string) error {
	var ok []int64
	if err := tx.Model(&Task{}).Where("id = ?", taskID).Where(answerers, by, false).Pluck("id", &ok).Error; err != nil {
		return err
	}
	if len(ok) == 0 {
		var n int64
		if err := tx.Model(&Task{}).Where("id = ?", taskID).Count(&n).Error; err != nil {
			return err
		}
		if n == 0 {
			return notFound(fmt.Sprintf("task %d", taskID), gorm.ErrRecordNotFound)
		}
		return fmt.Errorf("models: %s may not answer the idle notices of task %d: only its owner, its project's leads and admins do: %w",
			by, taskID, ErrForbidden)
	}
	return nil
}
