package models

import (
	"context"
	"fmt"
	"time"
)

// Retention is how long the record that is not the ledger is kept. The ledger — tasks, their
// events, allocations, nodes, GPUs, machines, rollups, bills and the audit log — is kept;
// PruneHistory deletes the rest once it is older than these.
type Retention struct {
	// Keep bounds notifications (by when they were sent), scaling events, pools' size
	// samples and alerts (by when they were resolved, or, open, last raised: a boot timeout
	// or a vanished machine is raised once and never resolved).
	Keep time.Duration
	// Sessions are the login limits: a session past its absolute expiry, or idle longer than
	// Sessions.Idle, can never be used again and is deleted.
	Sessions SessionLimits
}

// pruneBatch is how many rows one delete of PruneHistory removes, so that no writer waits
// long behind it.
const pruneBatch = 500

// PruneHistory deletes, pruneBatch rows a statement, the notifications, scaling events,
// pools' size samples and alerts older than h.Keep at now, and the sessions that
// have expired. A notification's key stops deduplicating once the notification is gone.
// It returns how many rows it deleted.
func (s *Store) PruneHistory(ctx context.Context, now time.Time, h Retention) (int64, error) {
	now = UTC(now)
	cutoff := now.Add(-h.Keep)
	steps := []struct{ table, where string }{
		{"notifications", "created_at < ?"},
		{"scaling_events", "at < ?"},
		{"alerts", "COALESCE(resolved_at, last_at) < ?"},
		{"sessions", "expires_at < ? OR last_seen_at < ?"},
	}
	args := [][]any{{cutoff}, {cutoff}, {cutoff}, {now, now.Add(-h.Sessions.Idle)}}
	var total int64
	for i, st := range steps {
		n, err := s.deleteBatches(ctx, st.table, st.where, args[i]...)
		total += n
		if err != nil {
			return total, fmt.Errorf("models: prune %s: %w", st.table, err)
		}
	}
	n, err := s.prunePoolSizes(ctx, cutoff)
	total += n
	if err != nil {
		return total, fmt.Errorf("models: prune pool_size_samples: %w", err)
	}
	return total, nil
}

// deleteBatches deletes the rows of table matching where, oldest ids first, pruneBatch at a
// time, until none is left.
func (s *Store) deleteBatches(ctx context.Context, table, where string, args ...any) (int64, error) {
	db := s.db.WithContext(ctx)
	var total int64
	for {
		res := db.Exec(`DELETE FROM `+table+` WHERE id IN (SELECT id FROM `+table+` WHERE `+where+` ORDER BY id LIMIT ?)`,
			append(args, pruneBatch)...)
		if res.Error != nil {
			return total, res.Error
		}
		total += res.RowsAffected
		if res.RowsAffected < pruneBatch {
			return total, nil
		}
	}
}

// prunePoolSizes deletes pools' size samples before cutoff, an hour of them at a time (a
// pool samples once a minute).
func (s *Store) prunePoolSizes(ctx context.Context, cutoff time.Time) (int64, error) {
	db := s.db.WithContext(ctx)
	var total int64
	for {
		var oldest []time.Time
		if err := db.Model(&PoolSizeSample{}).Order("at").Limit(1).Pluck("at", &oldest).Error; err != nil {
			return total, err
		}
		if len(oldest) == 0 || !oldest[0].Before(cutoff) {
			return total, nil
		}
		upTo := oldest[0].Add(time.Hour)
		if upTo.After(cutoff) {
			upTo = cutoff
		}
		res := db.Where("at < ?", UTC(upTo)).Delete(&PoolSizeSample{})
		if res.Error != nil {
			return total, res.Error
		}
		total += res.RowsAffected
	}
}
