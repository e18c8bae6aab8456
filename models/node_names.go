package models

import (
	"context"
	"fmt"
)

// NodeNames returns every node's hostname by id.
func (s *Store) NodeNames(ctx context.Context) (map[int64]string, error) {
	var nodes []Node
	if err := s.db.WithContext(ctx).Select("id, hostname").Find(&nodes).Error; err != nil {
		return nil, fmt.Errorf("models: node names: %w", err)
	}
	out := make(map[int64]string, len(nodes))
	for _, n := range nodes {
		out[n.ID] = n.Hostname
	}
	return out, nil
}
