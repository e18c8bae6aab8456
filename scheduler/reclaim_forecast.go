package scheduler

import (
	"context"
	"sync"
	"time"

	"kashi/models"
)

// reclaimCache keeps the idle tasks' reclaim forecast for reclaimRefresh of clock time: it
// moves with the cards' readings and the scaling loop's notices, not with every tick.
type reclaimCache struct {
	mu sync.Mutex
	at time.Time
	by map[int64]time.Time
}

// reclaimRefresh is how long, in clock time, the loop reuses its reclaim forecast.
const reclaimRefresh = 30 * time.Second

// reclaims is the reclaim forecast by task (LoopConfig.ReclaimForecast), read at most once
// per reclaimRefresh; nil without one.
func (l *Loop) reclaims(ctx context.Context, now time.Time, pools []models.ConfiguredPool, nodes []models.NodeGPUs,
	tasks []models.TaskRow, open []models.Allocation) (map[int64]time.Time, error) {
	if l.cfg.ReclaimForecast == nil {
		return nil, nil
	}
	c := &l.idle
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.by != nil && !now.Before(c.at) && now.Sub(c.at) < reclaimRefresh {
		return c.by, nil
	}
	by, err := l.cfg.ReclaimForecast(ctx, now, pools, nodes, tasks, open)
	if err != nil {
		return nil, err
	}
	c.by, c.at = by, now
	return by, nil
}
