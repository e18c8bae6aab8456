package models

import (
	"context"
	"fmt"
	"sort"
	"time"
)

// IngestResult counts what IngestSamples did with a batch.
type IngestResult struct {
	Accepted   int
	Duplicates int
}

// IngestSamples stores a batch of samples from one node and updates each GPU's latest reading,
// idle and saturation timers, and the node's last-seen time. The batch is all or nothing: any
// bad sample rejects the whole batch with a *FieldError naming it. Samples are idempotent on
// (GPU, ts): a repeated one is counted as a duplicate and changes nothing. Batches from many
// nodes are committed together (sample_commit.go); IngestSamples returns once its batch is.
func (s *Store) IngestSamples(ctx context.Context, nodeID int64, samples []Reading, now time.Time) (IngestResult, error) {
	if len(samples) == 0 {
		return IngestResult{}, fieldErr("samples", "is empty")
	}
	j := &sampleJob{nodeID: nodeID, samples: samples, now: UTC(now), done: make(chan sampleDone, 1)}
	if err := s.samples.enqueue(ctx, j); err != nil {
		return IngestResult{}, err
	}
	d, err := answer(ctx, s.samples, j.done)
	if err != nil {
		return IngestResult{}, err
	}
	return d.res, d.err
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
	case sm.XID < 0 || sm.XID > MaxXID:
		return nil, fieldErr(field+".xid", "must be between 0 and %d, got %d", MaxXID, sm.XID)
	}
	for j, p := range sm.Processes {
		if p.UsedMemoryMiB < 0 || p.UsedMemoryMiB > g.MemoryTotalMiB {
			return nil, fieldErr(fmt.Sprintf("%s.processes[%d].used_memory_mib", field, j), "must be between 0 and %d, got %d", g.MemoryTotalMiB, p.UsedMemoryMiB)
		}
	}
	return g, nil
}

// advanceGPUs moves each GPU's latest reading and its idle and saturation timers forward over
// the samples newer than what the GPU already shows, and returns the GPUs that moved.
func (s *Store) advanceGPUs(gpus []GPU, rows []GPUSample) []GPU {
	th := s.Thresholds()
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
	var order []int64
	moved := map[int64]bool{}
	for _, r := range sorted {
		g := byID[r.GPUID]
		ts := time.Unix(r.TS, 0).UTC()
		if g.SampledAt != nil && !ts.After(*g.SampledAt) {
			continue
		}
		g.SampledAt = &ts
		g.MemoryUsedMiB, g.UtilPct, g.TempC, g.PowerW = r.MemoryUsedMiB, r.UtilPct, r.TempC, r.PowerW
		g.IdleSince = since(g.IdleSince, ts, r.UtilPct < th.IdleUtilPct)
		saturated := r.UtilPct >= th.SaturatedPct || r.MemoryUsedMiB*100 >= int64(th.SaturatedPct)*g.MemoryTotalMiB
		g.SaturatedSince = since(g.SaturatedSince, ts, saturated)
		if !moved[g.ID] {
			moved[g.ID] = true
			order = append(order, g.ID)
		}
	}
	changed := make([]GPU, len(order))
	for i, id := range order {
		changed[i] = *byID[id]
	}
	return changed
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
