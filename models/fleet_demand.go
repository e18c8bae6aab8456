package models

import (
	"context"
	"fmt"
	"time"
)

// MemoryPoint is a pool's GPU memory use at one time: used over total of every card that
// reported in the bucket starting at At, in percent.
type MemoryPoint struct {
	At      time.Time
	UsedPct float64
}

// PoolMemory returns the pool's memory use per bucket of the raw samples taken in
// [from, to], oldest first. Buckets without samples are absent.
func (s *Store) PoolMemory(ctx context.Context, poolID int64, from, to time.Time, bucket time.Duration) ([]MemoryPoint, error) {
	b := int64(bucket / time.Second)
	if b < 1 {
		b = 1
	}
	var rows []struct {
		Bucket int64
		Used   int64
		Total  int64
	}
	// The bucket width is an integer written into the query, so that both databases see the
	// same expression in SELECT and GROUP BY.
	bucketExpr := fmt.Sprintf("(s.ts / %d) * %d", b, b)
	err := s.db.WithContext(ctx).Raw(`SELECT `+bucketExpr+` AS bucket,
		CAST(SUM(s.memory_used_mib) AS BIGINT) AS used, CAST(SUM(g.memory_total_mib) AS BIGINT) AS total
		FROM gpu_samples s JOIN gpus g ON g.id = s.gpu_id JOIN nodes n ON n.id = g.node_id
		WHERE n.pool_id = ? AND s.ts >= ? AND s.ts <= ?
		GROUP BY `+bucketExpr+` ORDER BY bucket`, poolID, from.Unix(), to.Unix()).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("models: memory of pool %d: %w", poolID, err)
	}
	out := make([]MemoryPoint, 0, len(rows))
	for _, r := range rows {
		if r.Total <= 0 {
			continue
		}
		out = append(out, MemoryPoint{At: time.Unix(r.Bucket, 0).UTC(), UsedPct: 100 * float64(r.Used) / float64(r.Total)})
	}
	return out, nil
}

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
