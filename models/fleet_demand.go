package models

import (
	"context"
	"fmt"
	"time"
)

// QueuedSince returns, for each queued task, when it last entered the queue (submitted
// ready, or its data became ready): how long it has been admissible demand.
func (s *Store) QueuedSince(ctx context.Context) (map[int64]time.Time, error) {
	var rows []struct {
		TaskID int64
		At     time.Time
	}
	err := s.db.WithContext(ctx).Table("task_events").Select("task_events.task_id, task_events.at").
		Joins("JOIN tasks ON tasks.id = task_events.task_id").
		Where("tasks.state = ? AND task_events.to_state = ?", TaskQueued, TaskQueued).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("models: queued since: %w", err)
	}
	out := make(map[int64]time.Time, len(rows))
	for _, r := range rows {
		if r.At.After(out[r.TaskID]) {
			out[r.TaskID] = r.At
		}
	}
	return out, nil
}
