package models

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"gorm.io/gorm"
)

// MaxTaskLogBytes is how much of the end of a task's log the server keeps.
const MaxTaskLogBytes = 64 << 10

// TaskLog is the end of a task's log as its node shipped it. EndOffset is the byte offset,
// in the log file on the node, just past Tail.
type TaskLog struct {
	TaskID    int64 `gorm:"primaryKey;autoIncrement:false"`
	Tail      string
	EndOffset int64
	UpdatedAt time.Time
}

// LogPiece is a piece of a task's log from its node, starting at byte Offset of the file.
type LogPiece struct {
	TaskID int64
	Offset int64
	Text   string
}

// AppendTaskLogs adds the pieces to the tails of the node's tasks, keeping the last
// MaxTaskLogBytes of each. What a tail already holds (a resend) is skipped; a gap (pieces
// the node dropped, or a first piece from the middle of the log) is marked with "…". Pieces of tasks not placed on the node are ignored.
func (s *Store) AppendTaskLogs(ctx context.Context, nodeID int64, pieces []LogPiece, now time.Time) error {
	if len(pieces) == 0 {
		return nil // most sample batches carry none: no transaction on the writer
	}
	now = UTC(now)
	// A task's log is not on the board.
	err := s.db.WithContext(quiet(ctx)).Transaction(func(tx *gorm.DB) error {
		for _, p := range pieces {
			var n int64
			if err := tx.Model(&Allocation{}).Where("task_id = ? AND node_id = ?", p.TaskID, nodeID).Count(&n).Error; err != nil {
				return err
			}
			if n == 0 {
				continue
			}
			var l TaskLog
			err := tx.Where("task_id = ?", p.TaskID).Take(&l).Error
			if err != nil && !errors.Is(err, gorm.ErrRecordNotFound) {
				return err
			}
			text, end := p.Text, p.Offset+int64(len(p.Text))
			switch {
			case end <= l.EndOffset:
				continue // already held
			case p.Offset < l.EndOffset:
				text = text[l.EndOffset-p.Offset:]
			case p.Offset > l.EndOffset: // the start of the log, or pieces the node dropped
				text = "…\n" + text
			}
			l.TaskID, l.Tail, l.EndOffset, l.UpdatedAt = p.TaskID, lastBytes(l.Tail+text, MaxTaskLogBytes), end, now
			if err := tx.Save(&l).Error; err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("models: task logs of node %d: %w", nodeID, err)
	}
	return nil
}

// TaskLogTail returns the end of a task's log; empty when none was shipped.
func (s *Store) TaskLogTail(ctx context.Context, taskID int64) (TaskLog, error) {
	var l TaskLog
	err := s.db.WithContext(ctx).Where("task_id = ?", taskID).Take(&l).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return TaskLog{TaskID: taskID}, nil
	}
	if err != nil {
		return l, fmt.Errorf("models: log of task %d: %w", taskID, err)
	}
	return l, nil
}

// lastBytes returns the end of s of at most n bytes, cut after a newline when one is near,
// else at a rune boundary.
func lastBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	if i := strings.IndexByte(s, '\n'); i >= 0 && i < 4096 {
		return s[i+1:]
	}
	for len(s) > 0 && !utf8.RuneStart(s[0]) {
		s = s[1:]
	}
	return s
}
