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

// JoinToken is a single-use registration token an admin issued for one machine: bound to a
// machine id, to a registered node, or to both. Using it is an admin's decision bound to that
// machine: it registers a new machine with that machine id, or registers again the node it
// names (or the node that has the machine id), with a new token; it never takes another
// node's hostname, machine id or GPUs.
type JoinToken struct {
	ID        int64
	TokenHash string `json:"-"`
	// MachineID is the machine id the registration must send; "" when the token is bound to
	// a node only.
	MachineID string
	// NodeID is the node the token registers again; 0 when it is bound to a machine id only.
	NodeID    int64
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

// CreateJoinToken issues a single-use join token bound to the machine machineID, to the node
// nodeID (not removed), or to both, and returns it; only its hash is stored.
func (s *Store) CreateJoinToken(ctx context.Context, actor, machineID string, nodeID int64, now time.Time) (string, JoinToken, error) {
	switch {
	case machineID == "" && nodeID == 0:
		return "", JoinToken{}, fieldErr("machine_id", "give the machine id or the node the token is for")
	case len(machineID) > 255 || !utf8.ValidString(machineID):
		return "", JoinToken{}, fieldErr("machine_id", "must be valid UTF-8 of at most 255 bytes")
	}
	token, hash := NewToken("kj1_")
	jt := JoinToken{TokenHash: hash, MachineID: machineID, NodeID: nodeID, CreatedBy: truncate(actor, 100), CreatedAt: UTC(now)}
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		subject := "machine " + machineID
		if nodeID != 0 {
			var n Node
			err := tx.Select("id, hostname").Where("id = ? AND state <> ?", nodeID, NodeRemoved).Take(&n).Error
			if errors.Is(err, gorm.ErrRecordNotFound) {
				return fieldErr("node_id", "no registered node has id %d", nodeID)
			}
			if err != nil {
				return err
			}
			subject = "node " + n.Hostname
		}
		if err := tx.Create(&jt).Error; err != nil {
			return err
		}
		return audit(tx, UTC(now), actor, AuditJoinTokenCreate, nil, subject, nil,
			map[string]any{"id": jt.ID, "machine_id": machineID, "node_id": nodeID})
	})
	if _, ok := errors.AsType[*FieldError](err); ok {
		return "", JoinToken{}, err
	}
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

// useJoinToken spends a single-use join token for a registration of machineID as hostname and
// returns it; a token unknown, used, revoked or bound to another machine id is ErrNotFound.
func useJoinToken(tx *gorm.DB, hash, machineID, hostname string, now time.Time) (JoinToken, error) {
	var jt JoinToken
	if !utf8.ValidString(machineID) {
		return jt, fmt.Errorf("models: join token: %w", ErrNotFound)
	}
	err := forUpdate(tx).Where("token_hash = ? AND used_at IS NULL AND revoked_at IS NULL AND (machine_id = '' OR machine_id = ?)",
		hash, machineID).Take(&jt).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return jt, fmt.Errorf("models: join token not valid for machine %q: %w", truncate(machineID, 60), ErrNotFound)
	}
	if err != nil {
		return jt, err
	}
	err = tx.Model(&JoinToken{}).Where("id = ?", jt.ID).Updates(map[string]any{"used_at": now, "hostname": hostname}).Error
	return jt, err
}
