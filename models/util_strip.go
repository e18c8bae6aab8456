package models

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// StripBuckets is how many 5-minute buckets a GPU's recent-use strip shows: an hour.
const StripBuckets = 12

// Levels of a strip bucket: no rollup, or the bucket's mean utilization under the idle
// threshold, between the thresholds, or at or over the active one (the thresholds the bucket
// was rolled up with).
const (
	StripNone uint8 = iota
	StripIdle
	StripLow
	StripActive
)

// UtilStrip is one GPU's last hour in 5-minute buckets, oldest first.
type UtilStrip [StripBuckets]uint8

// stripCache holds the strips of every GPU as the 5-minute rollups left them. They change
// only when a rollup run ends or a new bucket begins, so one read serves every board request
// in between.
type stripCache struct {
	mu sync.Mutex
	// gen counts rollup runs (RollUp bumps it); end is the bucket end the strips were read for.
	gen    atomic.Uint64
	readAt uint64
	end    int64
	strips map[int64]UtilStrip
}

// UtilStrips returns each GPU's recent-use strip for the hour before now's 5-minute bucket
// (GPUs without a rollup in the hour are absent). Reads are cached until the next rollup run
// or bucket.
func (s *Store) UtilStrips(ctx context.Context, now time.Time) (map[int64]UtilStrip, error) {
	c := &s.strips
	end := now.Unix() - now.Unix()%Rollup5m
	c.mu.Lock()
	defer c.mu.Unlock()
	gen := c.gen.Load()
	if c.strips != nil && c.end == end && c.readAt == gen {
		return c.strips, nil
	}
	from := end - StripBuckets*Rollup5m
	var rows []GPURollup
	err := s.db.WithContext(ctx).Select("gpu_id, bucket, n, util_sum, idle_pct, active_pct").
		Where("resolution = ? AND bucket >= ? AND bucket < ?", Rollup5m, from, end).Find(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("models: util strips: %w", err)
	}
	out := make(map[int64]UtilStrip)
	for _, r := range rows {
		if r.N == 0 {
			continue
		}
		st := out[r.GPUID]
		st[(r.Bucket-from)/Rollup5m] = stripLevel(r)
		out[r.GPUID] = st
	}
	c.strips, c.end, c.readAt = out, end, gen
	return out, nil
}

// stripLevel classifies a bucket's mean utilization by the thresholds it was rolled up with
// (the defaults when it records none).
func stripLevel(r GPURollup) uint8 {
	idle, active := r.IdlePct, r.ActivePct
	if idle == 0 {
		idle = DefaultThresholds.IdleUtilPct
	}
	if active == 0 {
		active = DefaultThresholds.ActiveUtilPct
	}
	mean := r.UtilSum / r.N
	switch {
	case mean < int64(idle):
		return StripIdle
	case mean < int64(active):
		return StripLow
	}
	return StripActive
}
