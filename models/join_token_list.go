package models

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// AuditJoinTokenRevoke: an admin revoked a single-use join token before it was used.
const AuditJoinTokenRevoke = "join-token-revoke"

// maxJoinTokensListed bounds the active join tokens one page lists.
const maxJoinTokensListed = 500

// JoinTokenRow is an active single-use join token as the admins' page lists it: what it is
// bound to, who made it and when.
type JoinTokenRow struct {
	JoinToken
	// Node is the hostname of node NodeID; "" when the token is bound to a machine id only.
	Node string
}

// ActiveJoinTokens returns the single-use join tokens neither used nor revoked, newest first,
// at most maxJoinTokensListed.
func (s *Store) ActiveJoinTokens(ctx context.Context) ([]JoinTokenRow, error) {
	var out []JoinTokenRow
	err := s.db.WithContext(ctx).Table("join_tokens").Select("join_tokens.*, COALESCE(nodes.hostname, '') AS node").
		Joins("LEFT JOIN nodes ON nodes.id = join_tokens.node_id").
		Where("join_tokens.used_at IS NULL AND join_tokens.revoked_at IS NULL").
		Order("join_tokens.id DESC").Limit(maxJoinTokensListed).Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("models: active join tokens: %w", err)
	}
	return out, nil
}

// JoinTokenNode is a registered node a join token may be bound to.
type JoinTokenNode struct {
	ID        int64
	Hostname  string
	MachineID string
}

// JoinTokenNodes returns the nodes a single-use join token may be bound to (those not
// removed), by hostname.
func (s *Store) JoinTokenNodes(ctx context.Context) ([]JoinTokenNode, error) {
	var out []JoinTokenNode
	err := s.db.WithContext(ctx).Model(&Node{}).Select("id, hostname, machine_id").Where("state <> ?", NodeRemoved).
		Order("hostname, id").Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("models: join token nodes: %w", err)
	}
	return out, nil
}

// RevokeJoinToken revokes the single-use join token id so that it registers nothing, and
// audits it, in one transaction. One statement decides, so a registration spending the token
// at the same moment and the revoke cannot both succeed: a token already used or revoked is
// ErrConflict, an unknown one ErrNotFound.
func (s *Store) RevokeJoinToken(ctx context.Context, actor string, id int64, now time.Time) error {
	now = UTC(now)
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		res := tx.Model(&JoinToken{}).Where("id = ? AND used_at IS NULL AND revoked_at IS NULL", id).Update("revoked_at", now)
		if res.Error != nil {
			return res.Error
		}
		var jt JoinToken
		if err := tx.Where("id = ?", id).Take(&jt).Error; err != nil {
			return notFound(fmt.Sprintf("join token %d", id), err)
		}
		if res.RowsAffected == 0 {
			return fmt.Errorf("models: join token %d was used or revoked already: %w", id, ErrConflict)
		}
		subject := "machine " + jt.MachineID
		if jt.NodeID != 0 {
			var n Node
			if err := tx.Select("hostname").Where("id = ?", jt.NodeID).Take(&n).Error; err == nil {
				subject = "node " + n.Hostname
			}
		}
		return audit(tx, now, actor, AuditJoinTokenRevoke, nil, subject, nil,
			map[string]any{"id": id, "machine_id": jt.MachineID, "node_id": jt.NodeID})
	})
	if err != nil && !errors.Is(err, ErrConflict) && !errors.Is(err, ErrNotFound) {
		return fmt.Errorf("models: revoke join token %d: %w", id, err)
	}
	return err
}
