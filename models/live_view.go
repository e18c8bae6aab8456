package models

import (
	"sync"
	"sync/atomic"
	"time"
)

// liveView holds each GPU's latest reading and timers and each node's last-seen time as the
// sample commits leave them, so that the board and the GPU list read them from memory. The
// database stays the record: a GPU the view has not seen since start shows its stored row.
type liveView struct {
	mu    sync.RWMutex
	gpus  map[int64]GPU
	nodes map[int64]time.Time
	// seq counts the records, for BoardVersion.
	seq atomic.Uint64
}

// record keeps the GPUs' new readings and the nodes' last-seen times.
func (v *liveView) record(gpus []GPU, seen map[int64]time.Time) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.gpus == nil {
		v.gpus, v.nodes = map[int64]GPU{}, map[int64]time.Time{}
	}
	for _, g := range gpus {
		v.gpus[g.ID] = g
	}
	for id, at := range seen {
		if at.After(v.nodes[id]) {
			v.nodes[id] = at
		}
	}
	v.seq.Add(1)
}

// BoardVersion changes whenever what the board shows may have changed: after a write that
// may change its structure and after new readings. Equal versions read the same board.
func (s *Store) BoardVersion() uint64 { return s.gen.Load() + s.live.seq.Load() }

// overlay brings rows up to the latest readings the view holds.
func (v *liveView) overlay(rows []BoardGPU) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	for i := range rows {
		r := &rows[i]
		if g, ok := v.gpus[r.ID]; ok && (r.SampledAt == nil || !g.SampledAt.Before(*r.SampledAt)) {
			r.MemoryUsedMiB, r.UtilPct, r.TempC, r.PowerW = g.MemoryUsedMiB, g.UtilPct, g.TempC, g.PowerW
			r.SampledAt, r.IdleSince, r.SaturatedSince = g.SampledAt, g.IdleSince, g.SaturatedSince
		}
		if at, ok := v.nodes[r.NodeID]; ok && at.After(r.LastSeenAt) {
			r.LastSeenAt = at
		}
	}
}
