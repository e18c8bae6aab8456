package models

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// NodeRemoved is the state of a node the scaling loop took out of its pool; its machine is
// deleted. The row stays for the ledger's sake (its GPUs carry allocations).
const NodeRemoved = "removed"

// NodeScaleState is the scaling loop's memory of a node, kept so that a restart does not
// reset its timers.
type NodeScaleState struct {
	NodeID int64 `gorm:"primaryKey;autoIncrement:false"`
	// UnneededSince is when the node was first seen without a task; nil while it has one.
	UnneededSince *time.Time
	// DrainSince is when the scaling loop drained it; nil unless it drains the node. A node
	// drained by hand has none, and the loop leaves it alone.
	DrainSince  *time.Time
	DrainReason string
}

// RemovedNodes returns the removed nodes of the pool whose hostname is among hostnames, by
// hostname (the latest row of each). Nodes leaves them out; a backend that lists its machines
// (a Kubernetes pool's cluster nodes) reads them to tell a machine the loop released, still
// listed while its deletion runs, from a new one.
func (s *Store) RemovedNodes(ctx context.Context, poolID int64, hostnames []string) (map[string]Node, error) {
	out := make(map[string]Node)
	if len(hostnames) == 0 {
		return out, nil
	}
	var rows []Node
	err := s.db.WithContext(ctx).Where("pool_id = ? AND state = ? AND hostname IN ?", poolID, NodeRemoved, hostnames).
		Order("id").Find(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("models: removed nodes: %w", err)
	}
	for _, n := range rows {
		out[n.Hostname] = n
	}
	return out, nil
}

// NodeScaleStates returns the scaling state of every node that has one, by node id.
func (s *Store) NodeScaleStates(ctx context.Context) (map[int64]NodeScaleState, error) {
	var rows []NodeScaleState
	if err := s.db.WithContext(ctx).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("models: node scale states: %w", err)
	}
	out := make(map[int64]NodeScaleState, len(rows))
	for _, r := range rows {
		out[r.NodeID] = r
	}
	return out, nil
}

// SetUnneeded stores when each node was first seen without a task; nodes absent from since
// have their mark cleared. Unchanged marks are not rewritten.
func (s *Store) SetUnneeded(ctx context.Context, since map[int64]time.Time) error {
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var rows []NodeScaleState
		if err := tx.Where("unneeded_since IS NOT NULL").Find(&rows).Error; err != nil {
			return err
		}
		have := make(map[int64]time.Time, len(rows))
		for _, r := range rows {
			have[r.NodeID] = *r.UnneededSince
			if _, ok := since[r.NodeID]; !ok {
				err := tx.Model(&NodeScaleState{}).Where("node_id = ?", r.NodeID).Update("unneeded_since", nil).Error
				if err != nil {
					return err
				}
			}
		}
		for id, t := range since {
			t = UTC(t)
			if old, ok := have[id]; ok && old.Equal(t) {
				continue
			}
			row := NodeScaleState{NodeID: id, UnneededSince: &t}
			err := tx.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "node_id"}},
				DoUpdates: clause.AssignmentColumns([]string{"unneeded_since"})}).Create(&row).Error
			if err != nil {
				return fmt.Errorf("node %d: %w", id, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("models: set unneeded: %w", err)
	}
	return nil
}

// DrainNode stops a ready node from taking new tasks on the scaling loop's behalf: the node
// becomes draining, its drain time is kept, the event is recorded and the pool's last
// scale-down marked, in one transaction. It returns ErrConflict when the node is not ready.
func (s *Store) DrainNode(ctx context.Context, nodeID int64, ev ScalingEvent, now time.Time) error {
	now = UTC(now)
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var n Node
		if err := tx.Select("id, pool_id, state").Where("id = ?", nodeID).Take(&n).Error; err != nil {
			return notFound(fmt.Sprintf("node %d", nodeID), err)
		}
		res := tx.Model(&Node{}).Where("id = ? AND state = ?", nodeID, NodeReady).Update("state", NodeDraining)
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return fmt.Errorf("models: node %d is %s: %w", nodeID, n.State, ErrConflict)
		}
		row := NodeScaleState{NodeID: nodeID, DrainSince: &now, DrainReason: truncate(ev.Detail, 500)}
		err := tx.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "node_id"}},
			DoUpdates: clause.AssignmentColumns([]string{"drain_since", "drain_reason"})}).Create(&row).Error
		if err != nil {
			return err
		}
		ev.NodeID = &nodeID
		if err := addScalingEvent(tx, n.PoolID, ev, now); err != nil {
			return err
		}
		return touchPoolScale(tx, PoolScaleState{PoolID: n.PoolID, LastScaleDownAt: &now, UpdatedAt: now}, "last_scale_down_at")
	})
	return nodeErr("drain", nodeID, err)
}

// UndrainNode gives up a drain the scaling loop started: the node takes tasks again. It
// returns ErrConflict when the node is not draining on the loop's behalf.
func (s *Store) UndrainNode(ctx context.Context, nodeID int64, ev ScalingEvent, now time.Time) error {
	now = UTC(now)
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		n, err := loopDrained(tx, nodeID)
		if err != nil {
			return err
		}
		if err := tx.Model(&Node{}).Where("id = ?", nodeID).Update("state", NodeReady).Error; err != nil {
			return err
		}
		err = tx.Model(&NodeScaleState{}).Where("node_id = ?", nodeID).
			Updates(map[string]any{"drain_since": nil, "drain_reason": ""}).Error
		if err != nil {
			return err
		}
		ev.NodeID = &nodeID
		return addScalingEvent(tx, n.PoolID, ev, now)
	})
	return nodeErr("undrain", nodeID, err)
}

// RemovedNode says which machine to delete for a removed node: its intent's key (empty when
// the node has no intent) and the provider's id (empty when unknown).
type RemovedNode struct {
	Key        string
	ProviderID string
}

// RemoveNode takes a node the loop drained, and which holds no task, out of its pool: the
// node becomes removed and its machine's intent deleting, with the event, in one transaction.
// It returns ErrConflict when the node is not drained by the loop or still holds a task.
func (s *Store) RemoveNode(ctx context.Context, nodeID int64, ev ScalingEvent, now time.Time) (RemovedNode, error) {
	defer s.capacity.clear() // the fleet may change
	defer s.gpuRows.clear()
	now = UTC(now)
	var out RemovedNode
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		n, err := loopDrained(tx, nodeID)
		if err != nil {
			return err
		}
		var tasks, allocs int64
		err = tx.Model(&Task{}).Where("node_id = ? AND state IN ?", nodeID, []string{TaskStarting, TaskRunning}).Count(&tasks).Error
		if err != nil {
			return err
		}
		if err := tx.Model(&Allocation{}).Where("node_id = ? AND ended_at IS NULL", nodeID).Count(&allocs).Error; err != nil {
			return err
		}
		if tasks+allocs > 0 {
			return fmt.Errorf("models: node %d holds %d tasks and %d open allocations: %w", nodeID, tasks, allocs, ErrConflict)
		}
		if err := tx.Model(&Node{}).Where("id = ?", nodeID).Update("state", NodeRemoved).Error; err != nil {
			return err
		}
		if err := tx.Where("node_id = ?", nodeID).Delete(&NodeScaleState{}).Error; err != nil {
			return err
		}
		out.ProviderID = n.MachineID
		var m Machine
		q := tx.Where("state <> ?", MachineDeleted).Where("node_id = ?", nodeID)
		if n.MachineID != "" {
			q = q.Or("state <> ? AND (provider_id = ? OR idempotency_key = ?)", MachineDeleted, n.MachineID, n.MachineID)
		}
		err = q.Order("id").Take(&m).Error
		switch {
		case errors.Is(err, gorm.ErrRecordNotFound):
		case err != nil:
			return err
		default:
			out.Key = m.IdempotencyKey
			if m.ProviderID != "" {
				out.ProviderID = m.ProviderID
			}
			err := tx.Model(&Machine{}).Where("id = ?", m.ID).
				Updates(map[string]any{"state": MachineDeleting, "reason": truncate(ev.Detail, 500), "delete_at": now}).Error
			if err != nil {
				return err
			}
		}
		ev.NodeID, ev.MachineKey = &nodeID, out.Key
		return addScalingEvent(tx, n.PoolID, ev, now)
	})
	return out, nodeErr("remove", nodeID, err)
}

// loopDrained returns the node when the scaling loop drains it, else ErrConflict.
func loopDrained(tx *gorm.DB, nodeID int64) (Node, error) {
	var n Node
	if err := tx.Where("id = ?", nodeID).Take(&n).Error; err != nil {
		return n, notFound(fmt.Sprintf("node %d", nodeID), err)
	}
	var st NodeScaleState
	err := tx.Where("node_id = ? AND drain_since IS NOT NULL", nodeID).Take(&st).Error
	if n.State != NodeDraining || errors.Is(err, gorm.ErrRecordNotFound) {
		return n, fmt.Errorf("models: node %d is %s, not drained by the scaling loop: %w", nodeID, n.State, ErrConflict)
	}
	return n, err
}

// nodeErr wraps err unless it is nil, ErrConflict or ErrNotFound (already explained).
func nodeErr(verb string, nodeID int64, err error) error {
	if err == nil || errors.Is(err, ErrConflict) || errors.Is(err, ErrNotFound) {
		return err
	}
	return fmt.Errorf("models: %s node %d: %w", verb, nodeID, err)
}
