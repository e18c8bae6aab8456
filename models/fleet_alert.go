package models

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// Alert kinds.
const (
	AlertBootTimeout     = "boot-timeout"
	AlertScaleFailed     = "scale-failed"
	AlertMachineVanished = "machine-vanished"
	AlertOrphanDeleted   = "orphan-deleted"
	AlertGPUMemory       = "gpu-memory"
	AlertIdleCards       = "idle-cards"
	AlertQuota           = "quota"
	// AlertPoolAtMax: a pool has been at its maximum size with demand waiting longer than
	// its policy allows.
	AlertPoolAtMax = "pool-at-max"
)

// Alert is something an admin should know: shown in the UI and sent to the chat channels.
// There is at most one open alert per kind and subject; raising it again counts.
type Alert struct {
	ID      int64
	Kind    string
	Subject string
	Message string
	// At is when it was first raised, LastAt when last; Count how many times.
	At         time.Time
	LastAt     time.Time
	Count      int
	ResolvedAt *time.Time
	// SentAt is when the channels were told; nil until they are.
	SentAt *time.Time
}

// RaiseAlert opens an alert of kind about subject, or counts it again (with the new message)
// when one is open. It reports whether the alert is new.
func (s *Store) RaiseAlert(ctx context.Context, kind, subject, message string, now time.Time) (Alert, bool, error) {
	var (
		a       Alert
		created bool
	)
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) (err error) {
		a, created, err = raiseAlert(tx, kind, subject, message, now)
		return err
	})
	if err != nil {
		return Alert{}, false, err
	}
	return a, created, nil
}

// raiseAlert is RaiseAlert inside the transaction tx.
func raiseAlert(tx *gorm.DB, kind, subject, message string, now time.Time) (Alert, bool, error) {
	now = UTC(now)
	kind, subject, message = truncate(kind, 50), truncate(subject, 200), truncate(message, 2000)
	var a Alert
	err := tx.Where("kind = ? AND subject = ? AND resolved_at IS NULL", kind, subject).Take(&a).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		a = Alert{Kind: kind, Subject: subject, Message: message, At: now, LastAt: now, Count: 1}
		if err := tx.Create(&a).Error; err != nil {
			return Alert{}, false, fmt.Errorf("models: raise alert %s %s: %w", kind, subject, err)
		}
		return a, true, nil
	}
	if err == nil {
		a.Message, a.LastAt, a.Count = message, now, a.Count+1
		err = tx.Model(&Alert{}).Where("id = ?", a.ID).
			Updates(map[string]any{"message": message, "last_at": now, "count": gorm.Expr("count + 1")}).Error
	}
	if err != nil {
		return Alert{}, false, fmt.Errorf("models: raise alert %s %s: %w", kind, subject, err)
	}
	return a, false, nil
}

// ResolveAlert closes the open alert of kind about subject, if any.
func (s *Store) ResolveAlert(ctx context.Context, kind, subject string, now time.Time) error {
	return resolveAlert(s.db.WithContext(ctx), kind, subject, now)
}

// resolveAlert is ResolveAlert on db, which may be a transaction.
func resolveAlert(db *gorm.DB, kind, subject string, now time.Time) error {
	err := db.Model(&Alert{}).Where("kind = ? AND subject = ? AND resolved_at IS NULL", kind, subject).
		Update("resolved_at", UTC(now)).Error
	if err != nil {
		return fmt.Errorf("models: resolve alert %s %s: %w", kind, subject, err)
	}
	return nil
}

// AlertFilter narrows Alerts: OpenOnly keeps unresolved ones, UnsentOnly those the channels
// were not told of; Limit > 0 caps the count.
type AlertFilter struct {
	OpenOnly   bool
	UnsentOnly bool
	Limit      int
}

// Alerts returns alerts, newest first (by LastAt).
func (s *Store) Alerts(ctx context.Context, f AlertFilter) ([]Alert, error) {
	q := s.db.WithContext(ctx).Order("last_at DESC, id DESC")
	if f.OpenOnly {
		q = q.Where("resolved_at IS NULL")
	}
	if f.UnsentOnly {
		q = q.Where("sent_at IS NULL")
	}
	if f.Limit > 0 {
		q = q.Limit(f.Limit)
	}
	var out []Alert
	if err := q.Find(&out).Error; err != nil {
		return nil, fmt.Errorf("models: alerts: %w", err)
	}
	return out, nil
}

// MarkAlertSent records that the channels were told of alert id.
func (s *Store) MarkAlertSent(ctx context.Context, id int64, now time.Time) error {
	if err := s.db.WithContext(ctx).Model(&Alert{}).Where("id = ?", id).Update("sent_at", UTC(now)).Error; err != nil {
		return fmt.Errorf("models: alert %d sent: %w", id, err)
	}
	return nil
}
