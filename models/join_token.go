package models

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// JoinToken is a single-use registration token an admin issued for one machine id. Using it
// is an admin's decision: it may also re-register a hostname that is already registered.
type JoinToken struct {
	ID        int64
	TokenHash string `json:"-"`
	MachineID string
	CreatedBy string
	CreatedAt time.Time
	// UsedAt and Hostname record the registration that used it.
	UsedAt    *time.Time
	Hostname  string
	RevokedAt *time.Time
}

// TableName is the join tokens table.
func (JoinToken) TableName() string { return "join_tokens" }

// securitySetting is the one row of security settings.
type securitySetting struct {
	ID                  int64 `gorm:"primaryKey;autoIncrement:false"`
	SharedJoinRevokedAt *time.Time
	SharedJoinRevokedBy string
}

func (securitySetting) TableName() string { return "security_settings" }

// CreateJoinToken issues a single-use join token for the machine machineID and returns it;
// only its hash is stored.
func (s *Store) CreateJoinToken(ctx context.Context, actor, machineID string, now time.Time) (string, JoinToken, error) {
	if err := checkName("machine_id", machineID, 255); err != nil {
		return "", JoinToken{}, err
	}
	token, hash := NewToken("kj1_")
	jt := JoinToken{TokenHash: hash, MachineID: machineID, CreatedBy: truncate(actor, 100), CreatedAt: UTC(now)}
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(&jt).Error; err != nil {
			return err
		}
		return audit(tx, UTC(now), actor, "join-token-create", nil, "machine "+machineID, nil, map[string]any{"id": jt.ID})
	})
	if err != nil {
		return "", JoinToken{}, fmt.Errorf("models: create join token: %w", err)
	}
	return token, jt, nil
}

// RevokeSharedJoinToken stops the configured shared join token from registering nodes;
// from then on only single-use tokens do.
func (s *Store) RevokeSharedJoinToken(ctx context.Context, actor string, now time.Time) error {
	now = UTC(now)
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		row := securitySetting{ID: 1, SharedJoinRevokedAt: &now, SharedJoinRevokedBy: truncate(actor, 100)}
		if err := tx.Clauses(clause.OnConflict{UpdateAll: true}).Create(&row).Error; err != nil {
			return err
		}
		return audit(tx, now, actor, "join-token-revoke-shared", nil, "shared join token", nil, nil)
	})
	if err != nil {
		return fmt.Errorf("models: revoke shared join token: %w", err)
	}
	return nil
}

// SharedJoinTokenRevoked reports whether an admin revoked the shared join token.
func (s *Store) SharedJoinTokenRevoked(ctx context.Context) (bool, error) {
	var row securitySetting
	err := s.db.WithContext(ctx).Where("id = 1").Take(&row).Error
	switch {
	case errors.Is(err, gorm.ErrRecordNotFound):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("models: security settings: %w", err)
	}
	return row.SharedJoinRevokedAt != nil, nil
}

// useJoinToken spends a single-use join token for machineID and hostname; a token unknown,
// used, revoked or of another machine is ErrNotFound.
func useJoinToken(tx *gorm.DB, hash, machineID, hostname string, now time.Time) error {
	if !utf8.ValidString(machineID) {
		return fmt.Errorf("models: join token: %w", ErrNotFound)
	}
	res := tx.Model(&JoinToken{}).Where("token_hash = ? AND machine_id = ? AND used_at IS NULL AND revoked_at IS NULL", hash, machineID).
		Updates(map[string]any{"used_at": now, "hostname": hostname})
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("models: join token not valid for machine %q: %w", truncate(machineID, 60), ErrNotFound)
	}
	return nil
}
