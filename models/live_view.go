package models

import (
	"sync"
	"sync/atomic"
	"time"
)

// liveView holds each GPU's latest reading and timers and each node's last-seen time as the
// sample commits leave them, so that the board and the GPU list read them from memory. The
// database stays the record: a GPU the view has not seen since start shows its stored row.
//
// Its size is fixed per GPU whatever the load: one liveGPU (the readings alone, 48 bytes, not
// the GPU's names) per GPU and one time per node, replaced by each reading, and the GPUs and
// nodes the board no longer lists (removed nodes, machines the scaling loop gave back) are
// dropped when it reads its snapshot again (keep), so a fleet that churns does not grow it.
type liveView struct {
	mu    sync.RWMutex
	gpus  map[int64]liveGPU
	nodes map[int64]time.Time
	// seq counts the records, for BoardVersion.
	seq atomic.Uint64
}

// liveGPU is one GPU's latest reading and timers.
type liveGPU struct {
	memoryUsedMiB                        int64
	utilPct, tempC, powerW               int32
	sampledAt, idleSince, saturatedSince *time.Time
}

// record keeps the GPUs' new readings and the nodes' last-seen times.
func (v *liveView) record(gpus []GPU, seen map[int64]time.Time) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.gpus == nil {
		v.gpus, v.nodes = map[int64]liveGPU{}, map[int64]time.Time{}
	}
	for _, g := range gpus {
		v.gpus[g.ID] = liveGPU{memoryUsedMiB: g.MemoryUsedMiB, utilPct: int32(g.UtilPct), tempC: int32(g.TempC), powerW: int32(g.PowerW),
			sampledAt: g.SampledAt, idleSince: g.IdleSince, saturatedSince: g.SaturatedSince}
	}
	for id, at := range seen {
		if at.After(v.nodes[id]) {
			v.nodes[id] = at
		}
	}
	v.seq.Add(1)
}

// keep drops the GPUs and nodes that rows, the whole board, do not list. A GPU recorded
// after rows were read and dropped here shows its stored row until its next reading.
func (v *liveView) keep(rows []BoardGPU) {
	gpus, nodes := make(map[int64]struct{}, len(rows)), make(map[int64]struct{})
	for i := range rows {
		gpus[rows[i].ID], nodes[rows[i].NodeID] = struct{}{}, struct{}{}
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	for id := range v.gpus {
		if _, ok := gpus[id]; !ok {
			delete(v.gpus, id)
		}
	}
	for id := range v.nodes {
		if _, ok := nodes[id]; !ok {
			delete(v.nodes, id)
		}
	}
}

// overlay brings rows up to the latest readings the view holds.
func (v *liveView) overlay(rows []BoardGPU) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	for i := range rows {
		r := &rows[i]
		if g, ok := v.gpus[r.ID]; ok && (r.SampledAt == nil || !g.sampledAt.Before(*r.SampledAt)) {
			r.MemoryUsedMiB, r.UtilPct, r.TempC, r.PowerW = g.memoryUsedMiB, int(g.utilPct), int(g.tempC), int(g.powerW)
			r.SampledAt, r.IdleSince, r.SaturatedSince = g.sampledAt, g.idleSince, g.saturatedSince
		}
		if at, ok := v.nodes[r.NodeID]; ok && at.After(r.LastSeenAt) {
			r.LastSeenAt = at
		}
	}
}

// BoardVersion changes whenever what the board shows may have changed: after a write that
// may change its structure and after new readings. Equal versions read the same board.
func (s *Store) BoardVersion() uint64 { return s.gen.Load() + s.live.seq.Load() }
