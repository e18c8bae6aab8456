package models

import "gorm.io/gorm"

// v56AssignmentSeq is migration 56's frozen counter of assignment changes: one row whose lock
// orders the changes as they commit.
type v56AssignmentSeq struct {
	ID  int64 `gorm:"primaryKey;autoIncrement:false"`
	Seq int64 `gorm:"not null;default:0"`
}

func (v56AssignmentSeq) TableName() string { return "assignment_seq" }

// v56NodeAssignmentChange is migration 56's frozen record of the last change to a node's
// assignments: the counter's value when it committed, and when it was written in Unix
// microseconds (UTC; to the microsecond, since it measures the delivery to the agent).
type v56NodeAssignmentChange struct {
	NodeID    int64 `gorm:"primaryKey;autoIncrement:false"`
	Seq       int64 `gorm:"not null;index"`
	ChangedUS int64 `gorm:"not null"`
}

func (v56NodeAssignmentChange) TableName() string { return "node_assignment_changes" }

// migrateV56AssignmentChanges adds what wakes the agents waiting for their assignments on
// every replica: the counter and each node's last change.
func migrateV56AssignmentChanges(tx *gorm.DB) error {
	if err := tx.Migrator().CreateTable(&v56AssignmentSeq{}, &v56NodeAssignmentChange{}); err != nil {
		return err
	}
	return tx.Create(&v56AssignmentSeq{ID: 1}).Error
}
