package models

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// IngestResult counts what IngestSamples did with a batch.
type IngestResult struct {
	Accepted   int
	Duplicates int
}

// IngestSamples stores a batch of samples from one node and updates each GPU's latest reading,
// idle and saturation timers, and the node's last-seen time. The batch is all or nothing: any
// bad sample rejects the whole batch with a *FieldError naming it. Samples are idempotent on
// (GPU, ts): a repeated one is counted as a duplicate and changes nothing.
func (s *Store) IngestSamples(ctx context.Context, nodeID int64, samples []Reading, now time.Time) (IngestResult, error) {
	now = UTC(now)
	if len(samples) == 0 {
		return IngestResult{}, fieldErr("samples", "is empty")
	}
	var res IngestResult
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var gpus []GPU
		if err := tx.Where("node_id = ?", nodeID).Find(&gpus).Error; err != nil {
			return err
		}
		byUUID := make(map[string]*GPU, len(gpus))
		for i := range gpus {
			byUUID[gpus[i].UUID] = &gpus[i]
		}
		floor, err := reportFloor(tx, now)
		if err != nil {
			return err
		}
		rows := make([]GPUSample, len(samples))
		for i, sm := range samples {
			g, err := validateSample(i, sm, byUUID, floor, now)
			if err != nil {
				return err
			}
			rows[i] = GPUSample{GPUID: g.ID, TS: sm.TS.Unix(), MemoryUsedMiB: sm.MemoryUsedMiB, UtilPct: sm.UtilPct, TempC: sm.TempC, PowerW: sm.PowerW}
		}
		ins := tx.Clauses(clause.OnConflict{DoNothing: true}).CreateInBatches(rows, 1000)
		if ins.Error != nil {
			return fmt.Errorf("insert samples: %w", ins.Error)
		}
		res.Accepted = int(ins.RowsAffected)
		res.Duplicates = len(rows) - res.Accepted
		if err := s.advanceGPUs(tx, gpus, rows); err != nil {
			return err
		}
		if err := tx.Model(&Node{}).Where("id = ?", nodeID).Update("last_seen_at", now).Error; err != nil {
			return err
		}
		// A node given up as lost that reports again is back.
		return tx.Model(&Node{}).Where("id = ? AND state = ?", nodeID, NodeLost).Update("state", NodeReady).Error
	})
	if err != nil {
		var fe *FieldError
		if errors.As(err, &fe) {
			return IngestResult{}, err
		}
		return IngestResult{}, fmt.Errorf("models: ingest samples of node %d: %w", nodeID, err)
	}
	return res, nil
}

// validateSample checks one sample against the node's GPUs and the window [floor, now +
// MaxFutureSkew] and returns its GPU.
func validateSample(i int, sm Reading, byUUID map[string]*GPU, floor, now time.Time) (*GPU, error) {
	field := fmt.Sprintf("samples[%d]", i)
	g, ok := byUUID[sm.UUID]
	switch {
	case !ok:
		return nil, fieldErr(field+".uuid", "unknown GPU %q on this node", truncate(sm.UUID, 100))
	case sm.TS.IsZero() || sm.TS.Year() < 2000:
		return nil, fieldErr(field+".ts", "is missing or before 2000")
	case sm.TS.Before(floor):
		return nil, fieldErr(field+".ts", "%s is before %s: samples older than %s or of a billed month are refused",
			sm.TS.UTC().Format(time.RFC3339), floor.Format(time.RFC3339), MaxReportAge)
	case sm.TS.After(now.Add(MaxFutureSkew)):
		return nil, fieldErr(field+".ts", "%s is more than %s ahead of the server's clock", sm.TS.UTC().Format(time.RFC3339), MaxFutureSkew)
	case sm.MemoryUsedMiB < 0 || sm.MemoryUsedMiB > g.MemoryTotalMiB:
		return nil, fieldErr(field+".memory_used_mib", "must be between 0 and the GPU's %d MiB, got %d", g.MemoryTotalMiB, sm.MemoryUsedMiB)
	case sm.UtilPct < 0 || sm.UtilPct > 100:
		return nil, fieldErr(field+".util_pct", "must be between 0 and 100, got %d", sm.UtilPct)
	case sm.TempC < -40 || sm.TempC > 150:
		return nil, fieldErr(field+".temp_c", "must be between -40 and 150, got %d", sm.TempC)
	case sm.PowerW < 0 || sm.PowerW > 5000:
		return nil, fieldErr(field+".power_w", "must be between 0 and 5000, got %d", sm.PowerW)
	}
	for j, p := range sm.Processes {
		if p.UsedMemoryMiB < 0 || p.UsedMemoryMiB > g.MemoryTotalMiB {
			return nil, fieldErr(fmt.Sprintf("%s.processes[%d].used_memory_mib", field, j), "must be between 0 and %d, got %d", g.MemoryTotalMiB, p.UsedMemoryMiB)
		}
	}
	return g, nil
}

// advanceGPUs moves each GPU's latest reading and its idle and saturation timers forward over
// the samples newer than what the GPU already shows.
func (s *Store) advanceGPUs(tx *gorm.DB, gpus []GPU, rows []GPUSample) error {
	sorted := make([]GPUSample, len(rows))
	copy(sorted, rows)
	sort.Slice(sorted, func(i, j int) bool {
		if sorted[i].GPUID != sorted[j].GPUID {
			return sorted[i].GPUID < sorted[j].GPUID
		}
		return sorted[i].TS < sorted[j].TS
	})
	byID := make(map[int64]*GPU, len(gpus))
	for i := range gpus {
		byID[gpus[i].ID] = &gpus[i]
	}
	changed := make(map[int64]bool)
	for _, r := range sorted {
		g := byID[r.GPUID]
		ts := time.Unix(r.TS, 0).UTC()
		if g.SampledAt != nil && !ts.After(*g.SampledAt) {
			continue
		}
		g.SampledAt = &ts
		g.MemoryUsedMiB, g.UtilPct, g.TempC, g.PowerW = r.MemoryUsedMiB, r.UtilPct, r.TempC, r.PowerW
		g.IdleSince = since(g.IdleSince, ts, r.UtilPct < s.thresholds.IdleUtilPct)
		saturated := r.UtilPct >= s.thresholds.SaturatedPct || r.MemoryUsedMiB*100 >= int64(s.thresholds.SaturatedPct)*g.MemoryTotalMiB
		g.SaturatedSince = since(g.SaturatedSince, ts, saturated)
		changed[g.ID] = true
	}
	for id := range changed {
		g := byID[id]
		err := tx.Model(&GPU{}).Where("id = ?", id).Updates(map[string]any{
			"memory_used_mib": g.MemoryUsedMiB, "util_pct": g.UtilPct, "temp_c": g.TempC, "power_w": g.PowerW,
			"sampled_at": g.SampledAt, "idle_since": g.IdleSince, "saturated_since": g.SaturatedSince}).Error
		if err != nil {
			return fmt.Errorf("update gpu %d: %w", id, err)
		}
	}
	return nil
}

// since keeps a "since" timer: it starts at ts when the condition begins and clears when it ends.
func since(cur *time.Time, ts time.Time, cond bool) *time.Time {
	switch {
	case !cond:
		return nil
	case cur == nil:
		return &ts
	default:
		return cur
	}
}

// truncate shortens s to at most n bytes for use in messages.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
