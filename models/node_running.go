package models

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// ConfirmRunning records what a node says it runs now, with each poll of its assignments: a
// starting task among ids is running (its running report is late or was lost). Ids of tasks
// not placed on the node are ignored. A poll whose tasks all run already (nearly every poll)
// only reads: the write transaction opens when there is a task to move.
func (s *Store) ConfirmRunning(ctx context.Context, nodeID int64, ids []int64, now time.Time) error {
	if len(ids) == 0 {
		return nil
	}
	starting, err := startingOnNode(s.db.WithContext(ctx), nodeID, ids)
	if err != nil {
		return fmt.Errorf("models: confirm running on node %d: %w", nodeID, err)
	}
	if len(starting) == 0 {
		return nil
	}
	now = UTC(now)
	err = s.inWriteGroup(ctx, func(tx *gorm.DB) error {
		starting, err := startingOnNode(tx, nodeID, ids) // again, under the write lock
		if err != nil {
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

// startingOnNode returns the tasks among ids that are starting with GPUs on the node.
func startingOnNode(db *gorm.DB, nodeID int64, ids []int64) ([]int64, error) {
	var starting []int64
	onNode := db.Model(&Allocation{}).Select("task_id").Where("node_id = ? AND ended_at IS NULL", nodeID)
	if err := db.Model(&Task{}).Where("id IN ? AND id IN (?) AND state = ?", ids, onNode, TaskStarting).
		Order("id").Pluck("id", &starting).Error; err != nil {
		return nil, err
	}
	return starting, nil
}

// NodesSeen records that the nodes ids are alive at now, as a node's samples do: the
// controller of a Kubernetes pool's cluster says so of the nodes the cluster lists as Ready
// (no agent sends their samples). A lost node is not made ready here: it registers again.
func (s *Store) NodesSeen(ctx context.Context, ids []int64, now time.Time) error {
	if len(ids) == 0 {
		return nil
	}
	err := s.db.WithContext(ctx).Model(&Node{}).Where("id IN ? AND state IN ? AND last_seen_at < ?", ids, []string{NodeReady, NodeDraining}, UTC(now)).
		Update("last_seen_at", UTC(now)).Error
	if err != nil {
		return fmt.Errorf("models: nodes seen: %w", err)
	}
	return nil
}
