package models

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// MemoryPoint is a pool's GPU memory use at one time: used over total of every card that
// reported in the bucket starting at At, in percent.
type MemoryPoint struct {
	At      time.Time
	UsedPct float64
}

// memorySettle is how long after its end a bucket of a pool's memory use is taken as whole:
// agents send their samples every interval (10 s by default), so a minute's last samples
// are in well within it. A sample that comes later still (an agent's backlog after an
// outage) is stored but no longer counted in a pool's memory use, which is a signal for
// the scaling loop, not a bill.
const memorySettle = time.Minute

// poolMemoryCache keeps each pool's settled buckets of memory use, so that the scaling
// loop's reading of the last minutes every tick reads only the samples since the last
// settled bucket: reading the whole window (12 minutes of 32,768 GPUs' samples, 2.4 million
// rows) every 30 s was most of what the readers' mapped pages held at their peak.
type poolMemoryCache struct {
	mu    sync.Mutex
	pools map[poolBuckets]poolMemorySettled
}

// poolBuckets is a pool and a bucket width in seconds.
type poolBuckets struct{ pool, width int64 }

// poolMemorySettled is a pool's settled buckets, oldest first: every bucket that starts at
// or after from and before until (Unix seconds) where the pool had samples.
type poolMemorySettled struct {
	points      []MemoryPoint
	from, until int64
}

// PoolMemory returns the pool's memory use per bucket of the raw samples taken from the
// start of from's bucket to to, oldest first (the first bucket whole). Buckets without
// samples are absent. Buckets settled at an earlier call (memorySettle after their end)
// are not read again.
func (s *Store) PoolMemory(ctx context.Context, poolID int64, from, to time.Time, bucket time.Duration) ([]MemoryPoint, error) {
	b := max(int64(bucket/time.Second), 1)
	key := poolBuckets{poolID, b}
	start, hi := from.Unix()-from.Unix()%b, to.Unix()
	c := &s.poolMemory
	c.mu.Lock()
	kept, ok := c.pools[key]
	c.mu.Unlock()
	if !ok || kept.from > start || kept.until <= start || kept.until > hi {
		kept = poolMemorySettled{from: start, until: start}
	}
	fresh, err := s.readPoolMemory(ctx, poolID, kept.until, hi, b)
	if err != nil {
		return nil, err
	}
	var out []MemoryPoint
	for _, p := range kept.points {
		if p.At.Unix() >= start {
			out = append(out, p)
		}
	}
	out = append(out, fresh...)
	if settled := (hi - int64(memorySettle/time.Second)) / b * b; settled > kept.until {
		next := poolMemorySettled{from: start, until: settled}
		for _, p := range out {
			if p.At.Unix() < settled {
				next.points = append(next.points, p)
			}
		}
		c.mu.Lock()
		if c.pools == nil {
			c.pools = map[poolBuckets]poolMemorySettled{}
		}
		c.pools[key] = next
		c.mu.Unlock()
	}
	return out, nil
}

// readPoolMemory reads the pool's memory use per bucket of width b seconds from the samples
// taken in [from, to] (Unix seconds).
func (s *Store) readPoolMemory(ctx context.Context, poolID, from, to, b int64) ([]MemoryPoint, error) {
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
		GROUP BY `+bucketExpr+` ORDER BY bucket`, poolID, from, to).Scan(&rows).Error
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
