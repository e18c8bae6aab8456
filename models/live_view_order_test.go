package models

import (
	"testing"
	"time"
)

// TestLiveViewKeepsTheNewerReading: two groups committed at once (Postgres) may record a
// GPU's readings out of order; the view keeps the newer, and marks it to be written.
func TestLiveViewKeepsTheNewerReading(t *testing.T) {
	var v liveView
	t1 := time.Date(2026, 12, 7, 8, 0, 0, 0, time.UTC)
	t2 := t1.Add(10 * time.Second)
	v.record([]GPU{{ID: 1, UtilPct: 90, SampledAt: &t2}}, nil)
	v.record([]GPU{{ID: 1, UtilPct: 10, SampledAt: &t1}}, nil)
	gs := []GPU{{ID: 1}}
	v.overlayGPUs(gs)
	if gs[0].SampledAt == nil || !gs[0].SampledAt.Equal(t2) || gs[0].UtilPct != 90 {
		t.Errorf("the view after readings at %v then %v shows %v, %d %%; want the newer, 90 %%", t2, t1, gs[0].SampledAt, gs[0].UtilPct)
	}
	if dirty := v.takeDirty(); len(dirty) != 1 || !dirty[0].SampledAt.Equal(t2) {
		t.Errorf("to be written: %+v, want the newer reading", dirty)
	}
}

// An overlay in chunks reaches every GPU and node of a fleet of any size, nodes without GPUs
// and the chunks' edges included, as one overlay under one hold of the lock would.
func TestLiveViewOverlaysEveryGPUInChunks(t *testing.T) {
	at := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	for _, sizes := range [][]int{{}, {0}, {8}, {overlayChunk}, {overlayChunk - 1, 1, 0, 1}, {16, 0, overlayChunk, 7, 0, 3*overlayChunk + 5}} {
		var v liveView
		var nodes []NodeGPUs
		var recorded []GPU
		seen := map[int64]time.Time{}
		id := int64(0)
		for n, size := range sizes {
			node := NodeGPUs{Node: Node{ID: int64(n + 1)}}
			for range size {
				id++
				node.GPUs = append(node.GPUs, GPU{ID: id, NodeID: node.ID})
				recorded = append(recorded, GPU{ID: id, UtilPct: int(id % 100), SampledAt: &at})
			}
			seen[node.ID] = at
			nodes = append(nodes, node)
		}
		v.record(recorded, seen)
		var rows []BoardGPU
		var gpus []GPU
		for _, n := range nodes {
			for _, g := range n.GPUs {
				rows = append(rows, BoardGPU{GPU: g})
				gpus = append(gpus, g)
			}
		}
		v.overlayFleet(nodes)
		v.overlay(rows)
		v.overlayGPUs(gpus)
		check := func(where string, g GPU) {
			if g.SampledAt == nil || g.UtilPct != int(g.ID%100) {
				t.Errorf("fleet %v: %s GPU %d not overlaid: %+v", sizes, where, g.ID, g)
			}
		}
		for _, n := range nodes {
			if !n.LastSeenAt.Equal(at) {
				t.Errorf("fleet %v: node %d last seen %v, want %v", sizes, n.ID, n.LastSeenAt, at)
			}
			for _, g := range n.GPUs {
				check("fleet", g)
			}
		}
		for _, r := range rows {
			check("board", r.GPU)
			if !r.LastSeenAt.Equal(at) {
				t.Errorf("fleet %v: board row of GPU %d last seen %v, want %v", sizes, r.ID, r.LastSeenAt, at)
			}
		}
		for _, g := range gpus {
			check("list", g)
		}
	}
}
