package models

import (
	"context"
	"fmt"

	"gorm.io/gorm"
)

// CordonNode drains a ready node by hand when on (it takes no new task; the tasks it runs
// run on), as a cordon of its Kubernetes node does, or makes a node drained by hand ready
// again when off. A node in another state, or drained by the scaling loop (which gives up
// its own drains), is left as it is. It reports whether it changed the node; each way is one
// conditional update.
func (s *Store) CordonNode(ctx context.Context, nodeID int64, on bool) (bool, error) {
	q := s.db.WithContext(ctx).Model(&Node{}).Where("id = ?", nodeID)
	var res *gorm.DB
	if on {
		res = q.Where("state = ?", NodeReady).Update("state", NodeDraining)
	} else {
		byLoop := s.db.Model(&NodeScaleState{}).Select("node_id").Where("node_id = ? AND drain_since IS NOT NULL", nodeID)
		res = q.Where("state = ? AND id NOT IN (?)", NodeDraining, byLoop).Update("state", NodeReady)
	}
	if res.Error != nil {
		return false, fmt.Errorf("models: cordon node %d: %w", nodeID, res.Error)
	}
	return res.RowsAffected > 0, nil
}
