package models

import (
	"context"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"
)

// Notification kinds of a task's owner: they hear when their task starts, fails to start,
// fails, is reclaimed, has its cards released in answer to its idle notice, or otherwise
// ends. Such a notification's Key is TaskNoteKey's and its Message the task's name. The idle
// reclaim's own notice (notice.IdleTask) is keyed TaskNoteKey(id, TaskReclaimed) too, so
// that the owner it told hears of the reclaim once.
const (
	NoteTaskStarted       = "task-started"
	NoteTaskFailedToStart = "task-failed-to-start"
	NoteTaskFailed        = "task-failed"
	NoteTaskReclaimed     = "task-reclaimed"
	NoteTaskReleased      = "task-released"
	NoteTaskEnded         = "task-ended"
)

// TaskNoteKey is the key of the notification about a task's move to state; TaskOfNoteKey
// reads the task id back.
func TaskNoteKey(taskID int64, state string) string { return fmt.Sprintf("task/%d/%s", taskID, state) }

// TaskOfNoteKey returns the task a notification key names, 0 when it names none.
func TaskOfNoteKey(key string) int64 {
	var id int64
	var rest string
	if !strings.HasPrefix(key, "task/") {
		return 0
	}
	if n, _ := fmt.Sscanf(key, "task/%d/%s", &id, &rest); n != 2 {
		return 0
	}
	return id
}

// taskNoteKind is the kind of notification a task's move to state with reason sends its
// owner; "" for none (it waits, or it is only being placed).
func taskNoteKind(state, reason string) string {
	switch state {
	case TaskRunning:
		return NoteTaskStarted
	case TaskFailed:
		if strings.HasPrefix(reason, "failed to start") {
			return NoteTaskFailedToStart
		}
		return NoteTaskFailed
	case TaskReclaimed:
		if TaskEnding(state, reason) == EndReleased {
			return NoteTaskReleased
		}
		return NoteTaskReclaimed
	case TaskSucceeded, TaskCancelled, TaskTimedOut:
		return NoteTaskEnded
	}
	return ""
}

// notifyTaskOwner tells a task's owner, when they are a user, that it moved to state.
func notifyTaskOwner(tx *gorm.DB, taskID int64, state, reason string, now time.Time) error {
	kind := taskNoteKind(state, reason)
	if kind == "" {
		return nil
	}
	var owner struct {
		UserID int64
		Name   string
	}
	err := tx.Table("tasks").Select("users.id AS user_id, tasks.name AS name").
		Joins("JOIN users ON users.name = tasks.owner").Where("tasks.id = ?", taskID).Limit(1).Scan(&owner).Error
	if err != nil || owner.UserID == 0 {
		return err
	}
	return notify(tx, []int64{owner.UserID}, TaskNoteKey(taskID, state), kind, owner.Name, now)
}

// UnreadNotifications counts a user's notifications not read yet.
func (s *Store) UnreadNotifications(ctx context.Context, userID int64) (int, error) {
	var n int64
	err := s.db.WithContext(ctx).Model(&Notification{}).Where("user_id = ? AND read_at IS NULL", userID).Count(&n).Error
	if err != nil {
		return 0, fmt.Errorf("models: unread notifications: %w", err)
	}
	return int(n), nil
}
