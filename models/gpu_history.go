package models

import (
	"context"
	"fmt"
	"time"
)

// GPUPlace is one GPU with its node and pool, for the GPU page.
type GPUPlace struct {
	GPU
	Hostname  string
	NodeState string
	Pool      string
}

// GPUByID returns GPU id and where it is; ErrNotFound when there is none.
func (s *Store) GPUByID(ctx context.Context, id int64) (GPUPlace, error) {
	return s.gpuPlace(ctx, "gpus.id = ?", id)
}

// GPUByUUID returns the GPU with uuid and where it is; ErrNotFound when there is none.
func (s *Store) GPUByUUID(ctx context.Context, uuid string) (GPUPlace, error) {
	if !matchable(uuid) {
		return GPUPlace{}, fmt.Errorf("models: gpu %q: %w", uuid, ErrNotFound)
	}
	return s.gpuPlace(ctx, "gpus.uuid = ?", uuid)
}

// gpuPlace returns the GPU that where (with arg) picks, and where it is.
func (s *Store) gpuPlace(ctx context.Context, where string, arg any) (GPUPlace, error) {
	var g GPUPlace
	err := s.db.WithContext(ctx).Table("gpus").
		Select("gpus.*, nodes.hostname AS hostname, nodes.state AS node_state, pools.name AS pool").
		Joins("JOIN nodes ON nodes.id = gpus.node_id").Joins("JOIN pools ON pools.id = nodes.pool_id").
		Where(where, arg).Take(&g).Error
	if err != nil {
		return g, notFound(fmt.Sprintf("gpu %v", arg), err)
	}
	one := []GPU{g.GPU}
	s.live.overlayGPUs(one)
	g.GPU = one[0]
	return g, nil
}

// NodePlace is one node with its pool and GPUs (by index), for the node page.
type NodePlace struct {
	Node
	Pool string
	GPUs []GPU `gorm:"-"`
}

// NodePlace returns node id with its pool and GPUs; ErrNotFound when there is none.
func (s *Store) NodePlace(ctx context.Context, id int64) (NodePlace, error) {
	var n NodePlace
	db := s.db.WithContext(ctx)
	err := db.Table("nodes").Select("nodes.*, pools.name AS pool").Joins("JOIN pools ON pools.id = nodes.pool_id").
		Where("nodes.id = ?", id).Take(&n).Error
	if err != nil {
		return n, notFound(fmt.Sprintf("node %d", id), err)
	}
	if err := db.Where("node_id = ?", id).Order("gpu_index").Find(&n.GPUs).Error; err != nil {
		return n, fmt.Errorf("models: gpus of node %d: %w", id, err)
	}
	s.live.overlayGPUs(n.GPUs)
	return n, nil
}

// GPUHistory returns the rollups of a resolution of the GPUs gpuIDs with buckets in
// [from, to), by bucket then GPU.
func (s *Store) GPUHistory(ctx context.Context, gpuIDs []int64, resolution int, from, to time.Time) ([]GPURollup, error) {
	var out []GPURollup
	if len(gpuIDs) == 0 {
		return nil, nil
	}
	err := s.db.WithContext(ctx).Where("gpu_id IN ? AND resolution = ? AND bucket >= ? AND bucket < ?",
		gpuIDs, resolution, from.Unix(), to.Unix()).Order("bucket, gpu_id").Find(&out).Error
	if err != nil {
		return nil, fmt.Errorf("models: gpu history: %w", err)
	}
	return out, nil
}

// Holding is a task's hold of one GPU: from StartedAt to EndedAt (nil: still held).
type Holding struct {
	GPUID     int64 `gorm:"column:gpu_id"`
	TaskID    int64
	Task      string
	Project   string
	Owner     string
	State     string
	StartedAt time.Time
	EndedAt   *time.Time
}

// HeldBy returns the holds of the GPUs gpuIDs that overlap [from, to), the latest first.
func (s *Store) HeldBy(ctx context.Context, gpuIDs []int64, from, to time.Time) ([]Holding, error) {
	var out []Holding
	if len(gpuIDs) == 0 {
		return nil, nil
	}
	err := s.db.WithContext(ctx).Table("allocations").
		Select(`allocations.gpu_id, allocations.task_id, tasks.name AS task, projects.name AS project, tasks.owner,
			tasks.state, allocations.started_at, allocations.ended_at`).
		Joins("JOIN tasks ON tasks.id = allocations.task_id").Joins("JOIN projects ON projects.id = tasks.project_id").
		Where("allocations.gpu_id IN ? AND allocations.started_at < ? AND (allocations.ended_at IS NULL OR allocations.ended_at > ?)",
			gpuIDs, UTC(to), UTC(from)).
		Order("allocations.started_at DESC, allocations.gpu_id").Limit(1000).Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("models: holds of gpus: %w", err)
	}
	return out, nil
}
