package models

import (
	"context"
	"fmt"
	"time"
)

// PoolBoots returns how long the latest n machines the scaling loop asked for in the pool
// took to come up (from the intent to its agent's registration being seen), newest first,
// deleted ones included. Adopted machines are left out: their intent is when they were
// found at the provider, not when they were asked for, so their boots read short.
func (s *Store) PoolBoots(ctx context.Context, poolID int64, n int) ([]time.Duration, error) {
	var rows []struct {
		CreatedAt time.Time
		ReadyAt   time.Time
	}
	err := s.db.WithContext(ctx).Model(&Machine{}).Select("created_at, ready_at").
		Where("pool_id = ? AND adopted = ? AND ready_at IS NOT NULL", poolID, false).
		Order("id DESC").Limit(n).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("models: boots of pool %d: %w", poolID, err)
	}
	out := make([]time.Duration, len(rows))
	for i, r := range rows {
		out[i] = r.ReadyAt.Sub(r.CreatedAt)
	}
	return out, nil
}
