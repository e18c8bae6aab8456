package models

import (
	"context"
	"fmt"
)

// SpecMemory returns the memory of one card of each spec in the fleet (MiB; the largest when
// cards of a spec differ), for advice on which spec a task needs.
func (s *Store) SpecMemory(ctx context.Context) (map[string]int64, error) {
	var rows []struct {
		Spec string
		Mem  int64
	}
	err := s.db.WithContext(ctx).Raw(`SELECT spec, MAX(memory_total_mib) AS mem FROM gpus GROUP BY spec`).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("models: spec memory: %w", err)
	}
	out := make(map[string]int64, len(rows))
	for _, r := range rows {
		out[r.Spec] = r.Mem
	}
	return out, nil
}
