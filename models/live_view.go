package models

import (
	"sync"
	"sync/atomic"
	"time"
)

// liveView holds each GPU's latest reading and timers and each node's last-seen time as the
// sample commits leave them, so that the board, the GPU list and every read of GPUs in this
// process (the scheduler's and the scaling loop's nodes, the GPU and node pages) read them
// from memory. It is also where the GPUs' rows learn them: the readings recorded since the
// last write are dirty, and the write-behind (gpu_write_behind.go) writes them to the rows
// once per interval and on Close. A GPU the view has not seen since start shows its row.
//
// Its size is fixed per GPU whatever the load: one liveGPU (the readings alone, 48 bytes, not
// the GPU's names) per GPU and one time per node, replaced by each reading, and the GPUs and
// nodes the board no longer lists (removed nodes, machines the scaling loop gave back) are
// dropped when it reads its snapshot again (keep), so a fleet that churns does not grow it.
type liveView struct {
	mu    sync.RWMutex
	gpus  map[int64]liveGPU
	nodes map[int64]time.Time
	// dirty are the GPUs whose reading the rows do not have yet.
	dirty map[int64]struct{}
	// seq counts the records, for BoardVersion.
	seq atomic.Uint64
}

// liveGPU is one GPU's latest reading and timers.
type liveGPU struct {
	memoryUsedMiB                        int64
	utilPct, tempC, powerW               int32
	sampledAt, idleSince, saturatedSince *time.Time
}

// record keeps the GPUs' new readings, to be written behind, and the nodes' last-seen times;
// a reading older than the one the view holds is not kept.
func (v *liveView) record(gpus []GPU, seen map[int64]time.Time) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.gpus == nil {
		v.gpus, v.nodes, v.dirty = map[int64]liveGPU{}, map[int64]time.Time{}, map[int64]struct{}{}
	}
	for _, g := range gpus {
		if l, ok := v.gpus[g.ID]; ok && l.sampledAt != nil && (g.SampledAt == nil || g.SampledAt.Before(*l.sampledAt)) {
			continue // a group committed beside this one (Postgres) recorded a newer reading
		}
		v.gpus[g.ID] = liveGPU{memoryUsedMiB: g.MemoryUsedMiB, utilPct: int32(g.UtilPct), tempC: int32(g.TempC), powerW: int32(g.PowerW),
			sampledAt: g.SampledAt, idleSince: g.IdleSince, saturatedSince: g.SaturatedSince}
		v.dirty[g.ID] = struct{}{}
	}
	for id, at := range seen {
		if at.After(v.nodes[id]) {
			v.nodes[id] = at
		}
	}
	v.seq.Add(1)
}

// keep drops the GPUs and nodes that rows, the whole board, do not list, and their readings
// not yet written: a removed node's GPUs are not written back. A GPU recorded after rows
// were read and dropped here shows its stored row until its next reading.
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
			delete(v.dirty, id)
		}
	}
	for id := range v.nodes {
		if _, ok := nodes[id]; !ok {
			delete(v.nodes, id)
		}
	}
}

// overlayChunk is how many GPUs an overlay brings up to date under one hold of the view's
// lock. A sample commit records its readings under the lock after the overlays in progress,
// and its agents wait for that: an overlay of the whole fleet (the board's snapshot, the
// scheduler's nodes; 32,768 GPUs at 4,096 agents) held it for milliseconds, and for as long
// as its goroutine then waited for a core on a busy machine. Between chunks a record goes
// first (sync.RWMutex lets no new reader in while a writer waits); each GPU's reading is
// whole, and a reader that must not miss a reading recorded meanwhile reads
// Store.BoardVersion before it overlays.
const overlayChunk = 1024

// overlay brings rows up to the latest readings the view holds.
func (v *liveView) overlay(rows []BoardGPU) {
	for len(rows) > 0 {
		n := min(len(rows), overlayChunk)
		v.mu.RLock()
		for i := range rows[:n] {
			r := &rows[i]
			v.overlayGPU(&r.GPU)
			if at, ok := v.nodes[r.NodeID]; ok && at.After(r.LastSeenAt) {
				r.LastSeenAt = at
			}
		}
		v.mu.RUnlock()
		rows = rows[n:]
	}
}

// overlayFleet brings nodes and their GPUs read from their rows up to the latest readings
// and last-seen times the view holds.
func (v *liveView) overlayFleet(nodes []NodeGPUs) {
	for len(nodes) > 0 {
		v.mu.RLock()
		gpus := 0
		for gpus < overlayChunk && len(nodes) > 0 {
			n := &nodes[0]
			for j := range n.GPUs {
				v.overlayGPU(&n.GPUs[j])
			}
			if at, ok := v.nodes[n.ID]; ok && at.After(n.LastSeenAt) {
				n.LastSeenAt = at
			}
			gpus += max(len(n.GPUs), 1)
			nodes = nodes[1:]
		}
		v.mu.RUnlock()
	}
}

// overlayGPUs brings GPUs read from their rows up to the latest readings the view holds.
func (v *liveView) overlayGPUs(gpus []GPU) {
	for len(gpus) > 0 {
		n := min(len(gpus), overlayChunk)
		v.mu.RLock()
		for i := range gpus[:n] {
			v.overlayGPU(&gpus[i])
		}
		v.mu.RUnlock()
		gpus = gpus[n:]
	}
}

// overlayGPU takes the view's reading of g unless g's row holds a newer one (written by
// another replica); v.mu is held.
func (v *liveView) overlayGPU(g *GPU) {
	if l, ok := v.gpus[g.ID]; ok && (g.SampledAt == nil || !l.sampledAt.Before(*g.SampledAt)) {
		g.MemoryUsedMiB, g.UtilPct, g.TempC, g.PowerW = l.memoryUsedMiB, int(l.utilPct), int(l.tempC), int(l.powerW)
		g.SampledAt, g.IdleSince, g.SaturatedSince = l.sampledAt, l.idleSince, l.saturatedSince
	}
}

// takeDirty returns the readings the rows do not have yet and marks them written; a write
// that fails gives them back (redirty).
func (v *liveView) takeDirty() []GPU {
	v.mu.Lock()
	defer v.mu.Unlock()
	out := make([]GPU, 0, len(v.dirty))
	for id := range v.dirty {
		l := v.gpus[id]
		out = append(out, GPU{ID: id, MemoryUsedMiB: l.memoryUsedMiB, UtilPct: int(l.utilPct), TempC: int(l.tempC), PowerW: int(l.powerW),
			SampledAt: l.sampledAt, IdleSince: l.idleSince, SaturatedSince: l.saturatedSince})
		delete(v.dirty, id)
	}
	return out
}

// redirty marks gpus, taken by takeDirty and not written, dirty again if the view still
// holds them.
func (v *liveView) redirty(gpus []GPU) {
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, g := range gpus {
		if _, ok := v.gpus[g.ID]; ok {
			v.dirty[g.ID] = struct{}{}
		}
	}
}

// BoardVersion changes whenever what the board shows may have changed: after a write that
// may change its structure and after new readings. Equal versions read the same board.
func (s *Store) BoardVersion() uint64 { return s.gen.Load() + s.live.seq.Load() }
