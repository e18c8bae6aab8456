package models

import (
	"context"
	"time"
)

// SetCheckpoint records a task's last checkpoint, as the node agent's reports will.
func SetCheckpoint(ctx context.Context, s *Store, taskID int64, at time.Time) error {
	return s.db.WithContext(ctx).Table("tasks").Where("id = ?", taskID).Update("last_checkpoint_at", UTC(at)).Error
}

// RefreshBoard reads the board's snapshot again, as the first request after a change does.
func RefreshBoard(ctx context.Context, s *Store) error {
	s.gen.Add(1)
	_, err := s.refreshBoard(ctx, true)
	return err
}

// BoardGen is the count of writes that made the board's snapshot stale.
func BoardGen(s *Store) uint64 { return s.gen.Load() }

// BoardSnapGen is the change count the board's snapshot was read at; 0 before the first.
func BoardSnapGen(s *Store) uint64 {
	if snap := s.board.snap.Load(); snap != nil {
		return snap.gen
	}
	return 0
}
