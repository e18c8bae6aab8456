package models

import (
	"context"
	"database/sql"
	"fmt"
)

// LeaderLockKey is the Postgres advisory lock key of the replica that runs the loops.
const LeaderLockKey int64 = 0x6b61736869 // "kashi"

// Leader is a held leader lock.
type Leader struct {
	conn *sql.Conn
	key  int64
}

// LeaderLock tries to make this process the one that runs the control loops. On Postgres it
// takes the session-level advisory lock key on a connection of its own and returns nil, nil
// when another replica holds it; on SQLite, which one process owns, it always succeeds.
func (s *Store) LeaderLock(ctx context.Context, key int64) (*Leader, error) {
	if !s.postgres {
		return &Leader{}, nil
	}
	sqlDB, err := s.db.DB()
	if err != nil {
		return nil, fmt.Errorf("models: leader lock: %w", err)
	}
	conn, err := sqlDB.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("models: leader lock: %w", err)
	}
	var got bool
	if err := conn.QueryRowContext(ctx, "SELECT pg_try_advisory_lock($1)", key).Scan(&got); err != nil {
		conn.Close()
		return nil, fmt.Errorf("models: leader lock: %w", err)
	}
	if !got {
		conn.Close()
		return nil, nil
	}
	return &Leader{conn: conn, key: key}, nil
}

// Check reports whether the lock is still held: on Postgres, that its connection answers (a
// lost connection loses the lock, and the loops must stop).
func (l *Leader) Check(ctx context.Context) error {
	if l.conn == nil {
		return nil
	}
	if err := l.conn.PingContext(ctx); err != nil {
		return fmt.Errorf("models: leader lock lost: %w", err)
	}
	return nil
}

// Release gives the lock back.
func (l *Leader) Release() {
	if l.conn == nil {
		return
	}
	l.conn.ExecContext(context.Background(), "SELECT pg_advisory_unlock($1)", l.key)
	l.conn.Close()
	l.conn = nil
}
