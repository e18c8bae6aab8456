package models

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// ConfirmRunning records what a node says it runs now, with each poll of its assignments: a
// starting task among ids is running (its running report is late or was lost). Ids of tasks
// not placed on the node are ignored.
func (s *Store) ConfirmRunning(ctx context.Context, nodeID int64, ids []int64, now time.Time) error {
	if len(ids) == 0 {
		return nil
	}
	now = UTC(now)
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var starting []int64
		onNode := tx.Model(&Allocation{}).Select("task_id").Where("node_id = ? AND ended_at IS NULL", nodeID)
		if err := tx.Model(&Task{}).Where("id IN ? AND id IN (?) AND state = ?", ids, onNode, TaskStarting).
			Order("id").Pluck("id", &starting).Error; err != nil {
			return err
		}
		for _, id := range starting {
			if err := transition(tx, id, []string{TaskStarting}, TaskRunning, "process running on its node", now, nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("models: confirm running on node %d: %w", nodeID, err)
	}
	return nil
}
