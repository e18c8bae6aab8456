package models

import (
	"context"
	"fmt"
	"time"
)

// Session is a logged-in browser. Its token lives in an HttpOnly cookie; only its hash is
// stored.
type Session struct {
	ID         int64
	TokenHash  string
	UserID     int64
	CreatedAt  time.Time
	LastSeenAt time.Time
	// ExpiresAt is the absolute expiry; the idle expiry is LastSeenAt plus the idle timeout.
	ExpiresAt time.Time
	// Method is how the session signed in: "password" or a directory's source.
	Method string
}

// SessionLimits bound a session's life.
type SessionLimits struct {
	Idle     time.Duration
	Absolute time.Duration
}

// CreateSession opens a session for user and returns its token, shown once to the browser.
func (s *Store) CreateSession(ctx context.Context, userID int64, lim SessionLimits, now time.Time) (string, error) {
	token, hash := NewToken("ks_")
	now = UTC(now)
	row := Session{TokenHash: hash, UserID: userID, CreatedAt: now, LastSeenAt: now, ExpiresAt: now.Add(lim.Absolute)}
	if err := s.db.WithContext(ctx).Create(&row).Error; err != nil {
		return "", fmt.Errorf("models: create session: %w", err)
	}
	return token, nil
}

// SessionUser returns the user of a live session and marks it seen; an expired session (idle
// or absolute) is deleted and reported as ErrNotFound.
func (s *Store) SessionUser(ctx context.Context, token string, lim SessionLimits, now time.Time) (User, error) {
	db := s.db.WithContext(ctx)
	now = UTC(now)
	var sess Session
	if err := db.Where("token_hash = ?", HashToken(token)).Take(&sess).Error; err != nil {
		return User{}, notFound("session", err)
	}
	if now.After(sess.ExpiresAt) || now.Sub(sess.LastSeenAt) > lim.Idle {
		db.Delete(&sess)
		return User{}, fmt.Errorf("models: session expired: %w", ErrNotFound)
	}
	var u User
	if err := db.Where("id = ? AND NOT disabled", sess.UserID).Take(&u).Error; err != nil {
		return User{}, notFound("session user", err)
	}
	// Marking the session seen at most once a minute keeps reads cheap; it changes nothing the
	// board shows.
	if now.Sub(sess.LastSeenAt) > time.Minute {
		s.db.WithContext(quiet(ctx)).Model(&sess).Update("last_seen_at", now)
	}
	return u, nil
}

// DeleteSession ends a session (logout).
func (s *Store) DeleteSession(ctx context.Context, token string) error {
	return s.db.WithContext(ctx).Where("token_hash = ?", HashToken(token)).Delete(&Session{}).Error
}

func (Session) TableName() string { return "sessions" }
