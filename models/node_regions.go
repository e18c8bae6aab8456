package models

import (
	"context"
	"fmt"
)

// NodeRegions maps each node whose pool has a region setting to that region.
func (s *Store) NodeRegions(ctx context.Context) (map[int64]string, error) {
	pools, err := s.ConfiguredPools(ctx)
	if err != nil {
		return nil, err
	}
	out := map[int64]string{}
	for _, p := range pools {
		if p.Config.Region == "" {
			continue
		}
		var ids []int64
		if err := s.db.WithContext(ctx).Model(&Node{}).Where("pool_id = ?", p.ID).Pluck("id", &ids).Error; err != nil {
			return nil, fmt.Errorf("models: node regions: %w", err)
		}
		for _, id := range ids {
			out[id] = p.Config.Region
		}
	}
	return out, nil
}

// PoolRegions lists the regions pools are in, by name, each once: the choices of the forms
// that accept regions.
func (s *Store) PoolRegions(ctx context.Context) ([]string, error) {
	var out []string
	if err := s.db.WithContext(ctx).Model(&Pool{}).Where("region <> ''").Distinct("region").Order("region").
		Pluck("region", &out).Error; err != nil {
		return nil, fmt.Errorf("models: pool regions: %w", err)
	}
	return out, nil
}
