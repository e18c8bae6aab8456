package models

import (
	"time"

	"gorm.io/gorm"
)

// Migration 35's frozen additions: the node a join token registers again, and when a GPU's
// node last registered listing it.
type (
	v35JoinToken struct {
		NodeID int64 `gorm:"not null;default:0"`
	}
	v35GPU struct {
		ListedAt *time.Time
	}
)

func (v35JoinToken) TableName() string { return "join_tokens" }
func (v35GPU) TableName() string       { return "gpus" }

// migrateV35NodeIdentity makes a machine id belong to one node: among the nodes not removed,
// a unique index; where two such nodes had the same machine id, the first registered keeps
// it and the others' is cleared (their agents are refused when they send it again, which
// raises an alert). A single-use join token may be bound to a node instead of a machine id.
// A GPU records when its node last registered listing it, every GPU now at its node's latest
// registration.
func migrateV35NodeIdentity(tx *gorm.DB) error {
	err := tx.Exec(`UPDATE nodes SET machine_id = '' WHERE machine_id <> '' AND state <> 'removed' AND EXISTS (
		SELECT 1 FROM nodes older WHERE older.machine_id = nodes.machine_id AND older.state <> 'removed' AND older.id < nodes.id)`).Error
	if err != nil {
		return err
	}
	err = tx.Exec(`CREATE UNIQUE INDEX idx_nodes_machine_id ON nodes (machine_id) WHERE machine_id <> '' AND state <> 'removed'`).Error
	if err != nil {
		return err
	}
	if err := tx.Migrator().AddColumn(&v35JoinToken{}, "NodeID"); err != nil {
		return err
	}
	if err := tx.Migrator().AddColumn(&v35GPU{}, "ListedAt"); err != nil {
		return err
	}
	return tx.Exec(`UPDATE gpus SET listed_at = (SELECT registered_at FROM nodes WHERE nodes.id = gpus.node_id)`).Error
}
