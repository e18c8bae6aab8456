package models

import (
	"context"
	"errors"
	"fmt"

	"gorm.io/gorm"
)

// LatestPoolSizes returns each pool's latest size sample, by pool id; a pool the scaling loop
// has not sampled is absent. One indexed read per pool: the samples table holds a row per
// pool and minute.
func (s *Store) LatestPoolSizes(ctx context.Context) (map[int64]PoolSizeSample, error) {
	db := s.db.WithContext(ctx)
	var ids []int64
	if err := db.Model(&Pool{}).Order("id").Pluck("id", &ids).Error; err != nil {
		return nil, fmt.Errorf("models: latest pool sizes: %w", err)
	}
	out := make(map[int64]PoolSizeSample, len(ids))
	for _, id := range ids {
		var row PoolSizeSample
		err := db.Where("pool_id = ?", id).Order("at DESC").Take(&row).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("models: latest size of pool %d: %w", id, err)
		}
		out[id] = row
	}
	return out, nil
}
