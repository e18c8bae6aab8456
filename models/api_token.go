package models

import (
	"context"
	"fmt"
	"time"
)

// Token scopes: read allows GET only; write allows everything the user may do.
const (
	ScopeRead  = "read"
	ScopeWrite = "write"
)

// APIToken lets scripts and the CLI act as a user.
type APIToken struct {
	ID         int64
	UserID     int64
	Name       string
	TokenHash  string `json:"-"`
	Scope      string
	CreatedAt  time.Time
	LastUsedAt *time.Time
	RevokedAt  *time.Time
}

// CreateAPIToken makes a token for user and returns it once; only its hash is stored.
func (s *Store) CreateAPIToken(ctx context.Context, userID int64, name, scope string, now time.Time) (string, APIToken, error) {
	if err := checkName("name", name, 100); err != nil {
		return "", APIToken{}, err
	}
	if scope != ScopeRead && scope != ScopeWrite {
		return "", APIToken{}, fieldErr("scope", "must be read or write, got %q", truncate(scope, 20))
	}
	token, hash := NewToken("ka_")
	row := APIToken{UserID: userID, Name: name, TokenHash: hash, Scope: scope, CreatedAt: UTC(now)}
	if err := s.db.WithContext(ctx).Create(&row).Error; err != nil {
		return "", APIToken{}, fmt.Errorf("models: create token: %w", err)
	}
	return token, row, nil
}

// TokenUser returns the user and scope of a live token and records its use, at most once a
// minute. A verified token is remembered for a few seconds and forgotten on any change to
// tokens, users or memberships in this process (auth_cache.go).
func (s *Store) TokenUser(ctx context.Context, token string, now time.Time) (User, APIToken, error) {
	hash := HashToken(token)
	o, ok, gen := authLookup(&s.auth, &s.auth.tokens, hash)
	if !ok {
		var err error
		if o, err = s.queryTokenOwner(ctx, hash); err != nil {
			return User{}, APIToken{}, err
		}
		authKeep(&s.auth, &s.auth.tokens, hash, o, gen)
	}
	t := o.token
	now = UTC(now)
	// Only a use a minute after the last one writes (a script's submits would each take the
	// writer otherwise), in one conditional statement: concurrent requests neither lose a use
	// nor write twice. A token's use changes nothing the board shows, nor who may do what.
	if t.LastUsedAt == nil || now.Sub(*t.LastUsedAt) >= time.Minute {
		s.db.WithContext(quiet(ctx)).Model(&APIToken{}).
			Where("id = ? AND (last_used_at IS NULL OR last_used_at < ?)", t.ID, now.Add(-time.Minute)).
			Update("last_used_at", now)
		s.auth.used(hash, now)
	}
	return o.user, t, nil
}

// queryTokenOwner reads the live token of hash with its user; ErrNotFound when the token is
// unknown or revoked or its user disabled.
func (s *Store) queryTokenOwner(ctx context.Context, hash string) (tokenOwner, error) {
	var row struct {
		APIToken
		UserName     string
		UserRole     string
		UserDisabled bool
	}
	err := s.db.WithContext(ctx).Table("api_tokens").Select("api_tokens.*, users.name AS user_name, users.role AS user_role, users.disabled AS user_disabled").
		Joins("JOIN users ON users.id = api_tokens.user_id").
		Where("api_tokens.token_hash = ? AND api_tokens.revoked_at IS NULL", hash).Take(&row).Error
	if err != nil {
		return tokenOwner{}, notFound("api token", err)
	}
	if row.UserDisabled {
		return tokenOwner{}, fmt.Errorf("models: token of a disabled user: %w", ErrNotFound)
	}
	return tokenOwner{user: User{ID: row.UserID, Name: row.UserName, Role: row.UserRole}, token: row.APIToken}, nil
}

// APITokens returns a user's tokens, newest first.
func (s *Store) APITokens(ctx context.Context, userID int64) ([]APIToken, error) {
	var out []APIToken
	if err := s.db.WithContext(ctx).Where("user_id = ?", userID).Order("id DESC").Find(&out).Error; err != nil {
		return nil, fmt.Errorf("models: tokens of user %d: %w", userID, err)
	}
	return out, nil
}

// RevokeAPIToken revokes one of a user's tokens.
func (s *Store) RevokeAPIToken(ctx context.Context, userID, id int64, now time.Time) error {
	res := s.db.WithContext(ctx).Model(&APIToken{}).Where("id = ? AND user_id = ? AND revoked_at IS NULL", id, userID).
		Update("revoked_at", UTC(now))
	if res.Error != nil {
		return fmt.Errorf("models: revoke token %d: %w", id, res.Error)
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("models: token %d: %w", id, ErrNotFound)
	}
	return nil
}

func (APIToken) TableName() string { return "api_tokens" }
