package models

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// LostNode is a node MarkLostNodes gave up on, with the tasks it ended.
type LostNode struct {
	NodeID   int64
	Hostname string
	LastSeen time.Time
	Tasks    []int64
}

// MarkLostNodes marks lost each node of ids that is ready or draining and still silent since
// before cutoff (a node that reported since the caller looked is kept). The open
// allocations of the tasks running on it close at the last moment the node was known alive
// (never before they opened), and those tasks are queued again for their next attempt, at
// the head of their lane, or end failed when they have none left (or a stop was asked of
// them): their card-seconds since their last checkpoint count as rerun, or as interrupted.
// This is also the recovery after a crash of the server: the first check after the restart
// closes what the dead nodes held. A lost node that reports again is ready again.
func (s *Store) MarkLostNodes(ctx context.Context, ids []int64, cutoff, now time.Time) ([]LostNode, error) {
	now = UTC(now)
	var lost []LostNode
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var nodes []Node
		if err := tx.Where("id IN ? AND state IN ? AND last_seen_at < ?", ids, []string{NodeReady, NodeDraining}, UTC(cutoff)).
			Order("id").Find(&nodes).Error; err != nil {
			return err
		}
		for _, n := range nodes {
			ln := LostNode{NodeID: n.ID, Hostname: n.Hostname, LastSeen: n.LastSeenAt}
			if err := tx.Model(&Node{}).Where("id = ?", n.ID).Update("state", NodeLost).Error; err != nil {
				return err
			}
			onNode := tx.Model(&Allocation{}).Select("task_id").Where("node_id = ? AND ended_at IS NULL", n.ID)
			if err := tx.Model(&Task{}).Where("id IN (?) AND state IN ?", onNode, []string{TaskStarting, TaskRunning}).
				Order("id").Pluck("id", &ln.Tasks).Error; err != nil {
				return err
			}
			for _, id := range ln.Tasks {
				if err := endOnLostNode(tx, id, n, now); err != nil {
					return err
				}
			}
			lost = append(lost, ln)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("models: mark lost nodes: %w", err)
	}
	return lost, nil
}

// endOnLostNode ends a task's attempt whose node was lost, at the node's last sign of life:
// the task is rerun when it has an attempt left and no stop was asked of it, else it ends
// failed. A task of several nodes loses only that node's cards then, and is rerun or ends
// when its other nodes have exited (see nodeExited), which are asked to stop.
func endOnLostNode(tx *gorm.DB, taskID int64, n Node, now time.Time) error {
	var t Task
	if err := forUpdate(tx).Where("id = ?", taskID).Take(&t).Error; err != nil {
		return err
	}
	at := n.LastSeenAt
	if t.StartedAt != nil && at.Before(*t.StartedAt) {
		at = *t.StartedAt
	}
	nodes, err := taskNodes(tx, []int64{taskID})
	if err != nil {
		return err
	}
	if len(nodes[taskID]) > 1 {
		if err := closeAllocations(tx, taskID, n.ID, at); err != nil {
			return err
		}
		return nodeExited(tx, t, n.ID, TaskReport{State: nodeLost, ExitCode: -1}, at, now, nil)
	}
	reason := lostReason(n.Hostname, n.LastSeenAt)
	if t.StopState == "" || t.StopState == TaskQueued {
		if rerunsLeft(t) {
			return rerun(tx, t, EndLost, reason, at, now)
		}
		reason = lastAttemptReason(reason, t.Attempt, t.MaxAttempts)
	}
	err = transition(tx, taskID, []string{TaskStarting, TaskRunning}, TaskFailed, reason, now, map[string]any{"ended_at": at})
	if err != nil {
		return err
	}
	return closeAllocations(tx, taskID, 0, at)
}

// closeAllocations closes the task's open allocations (on nodeID only, unless 0) at at, never
// before one opened (a GPU given after a lost node's last sign of life).
func closeAllocations(tx *gorm.DB, taskID, nodeID int64, at time.Time) error {
	open := func() *gorm.DB {
		q := tx.Model(&Allocation{}).Where("task_id = ? AND ended_at IS NULL", taskID)
		if nodeID != 0 {
			q = q.Where("node_id = ?", nodeID)
		}
		return q
	}
	if err := taskAssignmentsChanged(tx, taskID); err != nil {
		return err
	}
	if err := open().Where("started_at > ?", at).Update("ended_at", gorm.Expr("started_at")).Error; err != nil {
		return err
	}
	return open().Update("ended_at", at).Error
}

// MachineGone gives up node id at once, whatever its last report, because its machine is
// gone for good: the provider no longer lists it (the cloud took it back, a spot machine
// reclaimed), so the scaling loop must stop what ran there. As MarkLostNodes, the tasks
// running on it are queued again for their next attempt (ending lost, their card-seconds
// since their last checkpoint the rerun class), or end failed with none left, rather than
// wait for the node to fall silent long enough. A node already given up (or removed) is
// left as it is: nil.
func (s *Store) MachineGone(ctx context.Context, id int64, now time.Time) (*LostNode, error) {
	lost, err := s.MarkLostNodes(ctx, []int64{id}, time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC), now)
	if err != nil || len(lost) == 0 {
		return nil, err
	}
	return &lost[0], nil
}
