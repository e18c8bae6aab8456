package models

import (
	"context"
	"fmt"
	"time"
)

// TaskCard is one GPU a task held, with its node, from StartedAt until EndedAt (nil while
// held).
type TaskCard struct {
	GPUID       int64 `gorm:"column:gpu_id"`
	UUID        string
	Index       int `gorm:"column:gpu_index"`
	Spec        string
	MemTotalMiB int64 `gorm:"column:memory_total_mib"`
	Hostname    string
	StartedAt   time.Time
	EndedAt     *time.Time
}

// TaskCards returns the GPUs a task held or holds, by allocation, oldest first.
func (s *Store) TaskCards(ctx context.Context, taskID int64) ([]TaskCard, error) {
	var out []TaskCard
	err := s.db.WithContext(ctx).Table("allocations").
		Select("allocations.gpu_id, gpus.uuid, gpus.gpu_index, gpus.spec, gpus.memory_total_mib, nodes.hostname, allocations.started_at, allocations.ended_at").
		Joins("JOIN gpus ON gpus.id = allocations.gpu_id").
		Joins("JOIN nodes ON nodes.id = allocations.node_id").
		Where("allocations.task_id = ?", taskID).Order("allocations.started_at, nodes.hostname, gpus.gpu_index").
		Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("models: cards of task %d: %w", taskID, err)
	}
	return out, nil
}
