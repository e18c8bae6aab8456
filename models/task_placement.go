package models

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"gorm.io/gorm"
)

// ActiveTasks returns every task that waits or holds GPUs (waiting-data, queued, starting,
// running) with its project's name, in submit order.
func (s *Store) ActiveTasks(ctx context.Context) ([]TaskRow, error) {
	var out []TaskRow
	err := s.db.WithContext(ctx).Table("tasks").Select("tasks.*, projects.name AS project").
		Joins("JOIN projects ON projects.id = tasks.project_id").
		Where("tasks.state IN ?", []string{TaskWaitingData, TaskQueued, TaskStarting, TaskRunning}).
		Order("tasks.submitted_at, tasks.id").Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("models: active tasks: %w", err)
	}
	return out, nil
}

// NodeGPUs is a node with its pool and GPUs, as the scheduler sees it.
type NodeGPUs struct {
	Node
	Pool string
	Spec string
	GPUs []GPU `gorm:"-"`
}

// Nodes returns every node not removed, with its pool, spec and GPUs ordered by index, each
// GPU with its latest reading.
func (s *Store) Nodes(ctx context.Context) ([]NodeGPUs, error) {
	nodes, err := nodesWithGPUs(s.db.WithContext(ctx), false)
	for i := range nodes {
		s.live.overlayGPUs(nodes[i].GPUs)
	}
	return nodes, err
}

// nodesWithGPUs returns the nodes, removed ones too when removed is set, with their pool, spec
// and GPUs ordered by index.
func nodesWithGPUs(db *gorm.DB, removed bool) ([]NodeGPUs, error) {
	var nodes []NodeGPUs
	q := db.Table("nodes").Select("nodes.*, pools.name AS pool, pools.spec AS spec").Joins("JOIN pools ON pools.id = nodes.pool_id")
	if !removed {
		q = q.Where("nodes.state <> ?", NodeRemoved)
	}
	if err := q.Order("nodes.id").Scan(&nodes).Error; err != nil {
		return nil, fmt.Errorf("models: nodes: %w", err)
	}
	at := make(map[int64]int, len(nodes))
	for i, n := range nodes {
		at[n.ID] = i
	}
	gpus, err := readGPUs(db, "")
	if err != nil {
		return nil, fmt.Errorf("models: gpus: %w", err)
	}
	for _, g := range gpus {
		if i, ok := at[g.NodeID]; ok {
			nodes[i].GPUs = append(nodes[i].GPUs, g)
		}
	}
	return nodes, nil
}

// OpenAllocations returns the allocations not yet closed.
func (s *Store) OpenAllocations(ctx context.Context) ([]Allocation, error) {
	var out []Allocation
	if err := s.db.WithContext(ctx).Where("ended_at IS NULL").Order("task_id, gpu_id").Find(&out).Error; err != nil {
		return nil, fmt.Errorf("models: open allocations: %w", err)
	}
	return out, nil
}

// AllocationsSince returns the allocations open at or after since (open ones included).
func (s *Store) AllocationsSince(ctx context.Context, since time.Time) ([]Allocation, error) {
	var out []Allocation
	err := s.db.WithContext(ctx).Where("ended_at IS NULL OR ended_at >= ?", UTC(since)).Order("id").Find(&out).Error
	if err != nil {
		return nil, fmt.Errorf("models: allocations since %s: %w", since, err)
	}
	return out, nil
}

// Placement is one task to place on its GPUs, as the scheduler decided.
type Placement struct {
	TaskID int64
	// ProjectID is the task's project when the caller knows it; 0 reads it from the task.
	ProjectID int64
	GPUIDs    []int64
	// Overflow marks the allocations as beyond the project's quota (priced at the overflow
	// rate).
	Overflow bool
	Reason   string
}

// PlaceTask gives GPUs to a queued task: the task becomes starting and one allocation opens
// per GPU, on the GPU's node, all in one transaction. The task's node is its first GPU's. It
// returns ErrConflict (wrapped) when the task is no longer queued or a GPU is not free on a
// ready node; then nothing changes.
func (s *Store) PlaceTask(ctx context.Context, taskID int64, gpuIDs []int64, overflow bool, reason string, now time.Time) error {
	p := Placement{TaskID: taskID, GPUIDs: gpuIDs, Overflow: overflow, Reason: reason}
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error { return place(tx, p, UTC(now)) })
	if err != nil && !errors.Is(err, ErrConflict) && !errors.Is(err, ErrNotFound) {
		return fmt.Errorf("models: place task %d: %w", taskID, err)
	}
	return err
}

// PlaceTasks places a tick's tasks in one transaction: a placement that lost a race
// (ErrConflict, ErrNotFound) is found before it writes anything, is skipped, and the others
// stand. It returns how many were placed.
func (s *Store) PlaceTasks(ctx context.Context, ps []Placement, now time.Time) (int, error) {
	now = UTC(now)
	placed := 0
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		for _, p := range ps {
			err := place(tx, p, now)
			switch {
			case err == nil:
				placed++
			case !errors.Is(err, ErrConflict) && !errors.Is(err, ErrNotFound):
				return fmt.Errorf("task %d: %w", p.TaskID, err)
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("models: place tasks: %w", err)
	}
	return placed, nil
}

// place is one placement inside a transaction.
func place(tx *gorm.DB, p Placement, now time.Time) error {
	taskID, gpuIDs, overflow, reason := p.TaskID, p.GPUIDs, p.Overflow, p.Reason
	var t Task
	if err := tx.Select("id, project_id, attempt, trial_id").Where("id = ?", taskID).Take(&t).Error; err != nil {
		return notFound(fmt.Sprintf("task %d", taskID), err)
	}
	if p.ProjectID == 0 {
		p.ProjectID = t.ProjectID
	}
	// Only GPUs of ready nodes: a node drained or removed since the scheduler's snapshot
	// takes no new task.
	var gpus []GPU
	err := tx.Select("gpus.id, gpus.node_id").Joins("JOIN nodes ON nodes.id = gpus.node_id").
		Where("gpus.id IN ? AND nodes.state = ?", gpuIDs, NodeReady).Find(&gpus).Error
	if err != nil {
		return err
	}
	if len(gpus) != len(gpuIDs) || len(gpus) == 0 {
		return fmt.Errorf("models: place task %d: %d of %d GPUs are on ready nodes: %w", taskID, len(gpus), len(gpuIDs), ErrConflict)
	}
	nodeOf := make(map[int64]int64, len(gpus))
	for _, g := range gpus {
		nodeOf[g.ID] = g.NodeID
	}
	var held int64
	if err := tx.Model(&Allocation{}).Where("gpu_id IN ? AND ended_at IS NULL", gpuIDs).Count(&held).Error; err != nil {
		return err
	}
	if held > 0 {
		return fmt.Errorf("models: %d GPUs of task %d are already held: %w", held, taskID, ErrConflict)
	}
	// A card freed after the caller read its clock (an exit reported while a scheduler tick
	// read its snapshot) is given again when it was freed, not before: no card-second is in
	// the ledger twice.
	var freed []time.Time
	err = tx.Model(&Allocation{}).Where("gpu_id IN ? AND ended_at > ?", gpuIDs, now).
		Order("ended_at DESC").Limit(1).Pluck("ended_at", &freed).Error
	if err != nil {
		return err
	}
	if len(freed) > 0 {
		now = UTC(freed[0])
	}
	// Every conflict above is found before anything is written; transition's conditional
	// update is the first write and changes nothing when the task is no longer queued.
	err = transition(tx, taskID, []string{TaskQueued}, TaskStarting, reason, now,
		map[string]any{"node_id": nodeOf[gpuIDs[0]], "started_at": now})
	if err != nil {
		return err
	}
	rows := make([]Allocation, len(gpuIDs))
	for i, g := range gpuIDs {
		rows[i] = Allocation{TaskID: taskID, GPUID: g, NodeID: nodeOf[g], ProjectID: p.ProjectID, StartedAt: now, Overflow: overflow,
			Attempt: max(t.Attempt, 1), Trial: t.TrialID != nil}
	}
	// The partial unique index on open allocations is the last guard against a double grant.
	if err := tx.Create(&rows).Error; err != nil {
		return err
	}
	return assignmentsChanged(tx, slices.Collect(maps.Values(nodeOf)))
}

// SetWaitReasons stores why each waiting task waits, as the scheduler explained it.
func (s *Store) SetWaitReasons(ctx context.Context, reasons map[int64]string) error {
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		for id, r := range reasons {
			err := tx.Model(&Task{}).Where("id = ? AND state IN ?", id, []string{TaskWaitingData, TaskQueued}).
				Update("reason", truncate(r, 500)).Error
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("models: set wait reasons: %w", err)
	}
	return nil
}
