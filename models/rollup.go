package models

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// RollUp summarises raw samples into 5-minute buckets and 5-minute buckets into hourly ones,
// for every bucket that ended before now, then deletes raw samples older than retention and
// services' rollups older than ServiceRollupKeep. It is
// idempotent: a bucket rolled up again is recomputed from the same rows. History pages and
// bills read rollups, never raw samples. The work is done in small transactions — one
// 5-minute bucket of rollupGPUs GPUs, one hourly pass, about pruneRows samples — so that
// agents' samples are never kept waiting for the writer long; a run cut short leaves whole
// buckets, and the next run recomputes from the newest one.
func (s *Store) RollUp(ctx context.Context, now time.Time, retention time.Duration) error {
	err := s.rollUp(ctx, now)
	s.strips.gen.Add(1) // even a run cut short may have written buckets
	if err != nil {
		return fmt.Errorf("models: roll up: %w", err)
	}
	if err := s.prune(ctx, now.Add(-retention).Unix()); err != nil {
		return fmt.Errorf("models: prune samples: %w", err)
	}
	if err := s.pruneServiceRollups(ctx, now.Add(-ServiceRollupKeep).Unix()); err != nil {
		return fmt.Errorf("models: prune service rollups: %w", err)
	}
	return nil
}

// Batch sizes of RollUp.
const (
	// rollupGPUs is how many GPU ids one 5-minute rollup transaction covers.
	rollupGPUs = 512
	// pruneRows is about how many samples one prune transaction deletes: the oldest, up to
	// and with the second of the pruneRows-th (a step by rows, not by time, keeps up however
	// sparse or dense the samples are).
	pruneRows = 20000
)

// The thresholds a 5-minute bucket is classified by, in the rollup's SQL: those it was first
// rolled up with (0: before they were recorded, the defaults), else the ones in force. Each
// takes two parameters: the thresholds in force, then the default.
const (
	rollupIdle   = `(CASE WHEN r.gpu_id IS NULL THEN ? WHEN r.idle_pct = 0 THEN ? ELSE r.idle_pct END)`
	rollupActive = `(CASE WHEN r.gpu_id IS NULL THEN ? WHEN r.active_pct = 0 THEN ? ELSE r.active_pct END)`
)

// rollup5m recomputes one 5-minute bucket of a list of GPUs from their samples. A bucket
// rolled up before keeps the thresholds that first classified it (0: rolled up before they
// were recorded, with the defaults); a new one takes those in force. The GPUs are named one
// by one, not as a range of ids: each is then a seek to its window in the samples' key
// (gpu_id, ts). A range of ids read every sample the range ever had on SQLite (a week of
// them at the default retention) and, on Postgres, the whole fleet's window through the
// time index for every 512 GPUs: 0.4–0.8 s a statement at 32,768 GPUs after ten minutes,
// 25 s of the database's CPU a bucket (docs/decisions.md, "Rollups that seek their
// window, and small readers' caches").
const rollup5m = `INSERT INTO gpu_rollups (gpu_id, resolution, bucket, n, util_sum, util_max, mem_sum, mem_max, temp_sum, temp_max, power_sum, power_max, n_idle, n_active, idle_pct, active_pct)
	SELECT s.gpu_id, ?, s.ts - s.ts % 300, COUNT(*), SUM(s.util_pct), MAX(s.util_pct), SUM(s.memory_used_mib), MAX(s.memory_used_mib),
		SUM(s.temp_c), MAX(s.temp_c), SUM(s.power_w), MAX(s.power_w),
		SUM(CASE WHEN s.util_pct < ` + rollupIdle + ` THEN 1 ELSE 0 END),
		SUM(CASE WHEN s.util_pct >= ` + rollupActive + ` THEN 1 ELSE 0 END),
		MAX(` + rollupIdle + `), MAX(` + rollupActive + `)
	FROM gpu_samples s
	LEFT JOIN gpu_rollups r ON r.gpu_id = s.gpu_id AND r.resolution = 300 AND r.bucket = s.ts - s.ts % 300
	WHERE s.gpu_id IN ? AND s.ts >= ? AND s.ts < ?
	GROUP BY s.gpu_id, s.ts - s.ts % 300
	ON CONFLICT (gpu_id, resolution, bucket) DO UPDATE SET n = excluded.n, util_sum = excluded.util_sum,
		util_max = excluded.util_max, mem_sum = excluded.mem_sum, mem_max = excluded.mem_max,
		temp_sum = excluded.temp_sum, temp_max = excluded.temp_max, power_sum = excluded.power_sum,
		power_max = excluded.power_max, n_idle = excluded.n_idle, n_active = excluded.n_active, idle_pct = excluded.idle_pct,
		active_pct = excluded.active_pct`

// rollup5mArgs are rollup5m's arguments for the bucket from and the GPUs ids, with th in force.
func rollup5mArgs(th Thresholds, from int64, ids []int64) []any {
	return []any{Rollup5m, th.IdleUtilPct, DefaultThresholds.IdleUtilPct, th.ActiveUtilPct, DefaultThresholds.ActiveUtilPct,
		th.IdleUtilPct, DefaultThresholds.IdleUtilPct, th.ActiveUtilPct, DefaultThresholds.ActiveUtilPct,
		ids, from, from + Rollup5m}
}

// sampleSpan is the first and last time of a sample in [from, to), nil when there is none:
// each one row of the samples' time index. One statement of MIN(ts) and MAX(ts) together is
// no such read on SQLite (its shortcut takes a lone MIN or MAX): it read every sample of the
// window, two hours and five minutes of the fleet's (24 million at 32,768 GPUs), before each
// rollup.
func sampleSpan(db *gorm.DB, from, to int64) (span struct{ Lo, Hi *int64 }, err error) {
	err = db.Raw(`SELECT (SELECT ts FROM gpu_samples WHERE ts >= ? AND ts < ? ORDER BY ts LIMIT 1) AS lo,
		(SELECT ts FROM gpu_samples WHERE ts >= ? AND ts < ? ORDER BY ts DESC LIMIT 1) AS hi`, from, to, from, to).Scan(&span).Error
	return span, err
}

func (s *Store) rollUp(ctx context.Context, now time.Time) error {
	end5 := now.Unix() - now.Unix()%Rollup5m
	endHour := now.Unix() - now.Unix()%RollupHour
	// The bucket widths in the SQL are Rollup5m (300) and RollupHour (3600) written out:
	// Postgres groups by an expression only when it is the same text, placeholders included.
	// Only the buckets that may have changed since the last run are recomputed: those after
	// the newest rolled-up bucket, less a margin for late samples (an agent's backlog).
	const late = 2 * RollupHour
	db := s.db.WithContext(ctx)
	last5, err := lastBucket(db, Rollup5m)
	if err != nil {
		return err
	}
	span, err := sampleSpan(db, last5-late, end5)
	if err != nil {
		return err
	}
	if span.Lo != nil {
		var ids []int64 // GPUs are never deleted: every sample's GPU is here
		if err := db.Model(&GPU{}).Order("id").Pluck("id", &ids).Error; err != nil {
			return err
		}
		th := s.Thresholds()
		for from := *span.Lo - *span.Lo%Rollup5m; from <= *span.Hi; from += Rollup5m {
			for rest := ids; len(rest) > 0; rest = rest[min(rollupGPUs, len(rest)):] {
				if err := db.Exec(rollup5m, rollup5mArgs(th, from, rest[:min(rollupGPUs, len(rest))])...).Error; err != nil {
					return fmt.Errorf("5-minute rollup: %w", err)
				}
			}
		}
	}
	lastHour, err := lastBucket(db, RollupHour)
	if err != nil {
		return err
	}
	// An hour records the largest thresholds of its 5-minute buckets (they change rarely).
	err = db.Exec(`INSERT INTO gpu_rollups (gpu_id, resolution, bucket, n, util_sum, util_max, mem_sum, mem_max, temp_sum, temp_max, power_sum, power_max, n_idle, n_active, idle_pct, active_pct)
		SELECT gpu_id, ?, bucket - bucket % 3600, SUM(n), SUM(util_sum), MAX(util_max), SUM(mem_sum), MAX(mem_max),
			SUM(temp_sum), MAX(temp_max), SUM(power_sum), MAX(power_max), SUM(n_idle), SUM(n_active),
			MAX(idle_pct), MAX(active_pct)
		FROM gpu_rollups WHERE resolution = ? AND bucket >= ? AND bucket < ?
		GROUP BY gpu_id, bucket - bucket % 3600
		ON CONFLICT (gpu_id, resolution, bucket) DO UPDATE SET n = excluded.n, util_sum = excluded.util_sum,
			util_max = excluded.util_max, mem_sum = excluded.mem_sum, mem_max = excluded.mem_max,
			temp_sum = excluded.temp_sum, temp_max = excluded.temp_max, power_sum = excluded.power_sum,
			power_max = excluded.power_max, n_idle = excluded.n_idle, n_active = excluded.n_active, idle_pct = excluded.idle_pct,
			active_pct = excluded.active_pct`,
		RollupHour, Rollup5m, lastHour-late, endHour).Error
	if err != nil {
		return fmt.Errorf("hourly rollup: %w", err)
	}
	return nil
}

// prune deletes samples older than cutoff (Unix seconds), about pruneRows at a time: those
// up to the second of the pruneRows-th oldest, or all when fewer are left.
func (s *Store) prune(ctx context.Context, cutoff int64) error {
	db := s.db.WithContext(ctx)
	for {
		var upTo []int64
		if err := db.Model(&GPUSample{}).Where("ts < ?", cutoff).Order("ts").Offset(pruneRows).Limit(1).
			Pluck("ts", &upTo).Error; err != nil {
			return err
		}
		if len(upTo) == 0 {
			return db.Where("ts < ?", cutoff).Delete(&GPUSample{}).Error
		}
		if err := db.Where("ts <= ?", upTo[0]).Delete(&GPUSample{}).Error; err != nil {
			return err
		}
	}
}

// lastBucket returns the start of the newest bucket of a resolution, or 0 when there is none.
func lastBucket(tx *gorm.DB, resolution int) (int64, error) {
	var b int64
	err := tx.Model(&GPURollup{}).Where("resolution = ?", resolution).Select("COALESCE(MAX(bucket), 0)").Scan(&b).Error
	return b, err
}

// Rollups returns one GPU's rollups of a resolution with buckets in [from, to).
func (s *Store) Rollups(ctx context.Context, gpuID int64, resolution int, from, to time.Time) ([]GPURollup, error) {
	return s.GPUHistory(ctx, []int64{gpuID}, resolution, from, to)
}
