package models

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Notification is an in-app message for one user. Key makes it once-only: the same key is
// never sent twice to the same user (a reminder does not repeat).
type Notification struct {
	ID        int64
	UserID    int64
	Key       string
	Kind      string
	Message   string
	CreatedAt time.Time
	ReadAt    *time.Time
}

// notify sends one notification to each user, skipping users who already have key. It
// returns nothing about who was new; Notify does.
func notify(tx *gorm.DB, userIDs []int64, key, kind, msg string, now time.Time) error {
	_, err := notifyNew(tx, userIDs, key, kind, msg, now)
	return err
}

// notifyNew is notify that also returns the users it newly notified.
func notifyNew(tx *gorm.DB, userIDs []int64, key, kind, msg string, now time.Time) ([]int64, error) {
	var fresh []int64
	for _, id := range userIDs {
		n := Notification{UserID: id, Key: truncate(key, 200), Kind: kind, Message: truncate(msg, 2000), CreatedAt: UTC(now)}
		res := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&n)
		if res.Error != nil {
			return nil, res.Error
		}
		if res.RowsAffected > 0 {
			fresh = append(fresh, id)
		}
	}
	return fresh, nil
}

// notifyProject notifies the project's members of role ("" = all members and leads).
func notifyProject(tx *gorm.DB, projectID int64, role, key, kind, msg string, now time.Time) error {
	q := tx.Model(&ProjectMember{}).Where("project_id = ?", projectID)
	if role != "" {
		q = q.Where("role = ?", role)
	}
	var ids []int64
	if err := q.Pluck("user_id", &ids).Error; err != nil {
		return err
	}
	return notify(tx, ids, key, kind, msg, now)
}

// NotifyProject sends a notification once (by key) to a project's leads and members and
// reports whether anyone received it for the first time.
func (s *Store) NotifyProject(ctx context.Context, projectID int64, key, kind, msg string, now time.Time) (bool, error) {
	var fresh []int64
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var ids []int64
		if err := tx.Model(&ProjectMember{}).Where("project_id = ?", projectID).Pluck("user_id", &ids).Error; err != nil {
			return err
		}
		var err error
		fresh, err = notifyNew(tx, ids, key, kind, msg, now)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("models: notify project %d: %w", projectID, err)
	}
	return len(fresh) > 0, nil
}

// Notifications returns a user's notifications, newest first.
func (s *Store) Notifications(ctx context.Context, userID int64, limit int) ([]Notification, error) {
	var out []Notification
	if err := s.db.WithContext(ctx).Where("user_id = ?", userID).Order("id DESC").Limit(limit).Find(&out).Error; err != nil {
		return nil, fmt.Errorf("models: notifications: %w", err)
	}
	return out, nil
}

// MarkNotificationsRead marks all of a user's notifications read.
func (s *Store) MarkNotificationsRead(ctx context.Context, userID int64, now time.Time) error {
	return s.db.WithContext(ctx).Model(&Notification{}).Where("user_id = ? AND read_at IS NULL", userID).
		Update("read_at", UTC(now)).Error
}

func (Notification) TableName() string { return "notifications" }
