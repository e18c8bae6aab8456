package models

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// BoardFilter narrows BoardGPUs; empty fields mean all.
type BoardFilter struct {
	Pool    string
	Spec    string
	Project string
}

// BoardGPU is one GPU with its node, pool and the task holding it, as the board and
// GET /api/v1/gpus show it.
type BoardGPU struct {
	GPU
	Hostname   string
	NodeState  string
	LastSeenAt time.Time
	Pool       string
	// Region and Zone are the pool's.
	Region, Zone string
	// TaskID is 0 when no task holds the GPU.
	TaskID  int64
	Task    string
	Project string
	// Owner is who submitted the holding task; HeldSince is when the task took the GPU (nil
	// when free).
	Owner     string
	HeldSince *time.Time
}

// BoardGPUs returns the GPUs matching f ordered by pool, node and index, each with the task
// that holds it now and its latest reading. Nodes, GPUs and holders come from a snapshot read
// again only after a change (board_cache.go); readings from the live view the sample commits
// keep, so a request under load costs no query.
func (s *Store) BoardGPUs(ctx context.Context, f BoardFilter) ([]BoardGPU, error) {
	snap, err := s.boardSnapshot(ctx)
	if err != nil {
		return nil, err
	}
	var out []BoardGPU
	if f == (BoardFilter{}) {
		out = slices.Clone(snap.rows) // the whole board: one copy of 32,768 rows, not one each
	} else {
		match := func(r *BoardGPU) bool {
			return (f.Pool == "" || r.Pool == f.Pool) && (f.Spec == "" || r.Spec == f.Spec) && (f.Project == "" || r.Project == f.Project)
		}
		n := 0
		for i := range snap.rows {
			if match(&snap.rows[i]) {
				n++
			}
		}
		out = make([]BoardGPU, 0, n) // counted first: grown by doubling, a filter copied twice its rows
		for i := range snap.rows {
			if match(&snap.rows[i]) {
				out = append(out, snap.rows[i])
			}
		}
	}
	s.live.overlay(out)
	return out, nil
}

// queryBoardGPUs reads every GPU of a node not removed with its node, pool and holder, ordered
// by pool, node and index (sized by the last read's count). It reads current-state rows
// only, never samples; every change to the fleet or its holders pays it again, so it scans
// its rows itself (row_scan.go).
func (s *Store) queryBoardGPUs(ctx context.Context) ([]BoardGPU, error) {
	rows, err := s.db.WithContext(ctx).Raw(`SELECT `+gpuScan.columns+`, nodes.hostname, nodes.state, nodes.last_seen_at, pools.name, pools.region, pools.zone,
			COALESCE(tasks.id, 0), COALESCE(tasks.name, ''), COALESCE(projects.name, ''), COALESCE(tasks.owner, ''),
			allocations.started_at
		FROM gpus
		JOIN nodes ON nodes.id = gpus.node_id
		JOIN pools ON pools.id = nodes.pool_id AND nodes.state <> ?
		LEFT JOIN allocations ON allocations.gpu_id = gpus.id AND allocations.ended_at IS NULL
		LEFT JOIN tasks ON tasks.id = allocations.task_id
		LEFT JOIN projects ON projects.id = tasks.project_id
		ORDER BY pools.name, nodes.hostname, gpus.gpu_index`, NodeRemoved).Rows()
	if err != nil {
		return nil, fmt.Errorf("models: board gpus: %w", err)
	}
	out, err := scanRows(rows, &s.hints.board, func(r *BoardGPU) []any {
		return gpuScan.dest(&r.GPU, &r.Hostname, &r.NodeState, &r.LastSeenAt, &r.Pool, &r.Region, &r.Zone,
			&r.TaskID, &r.Task, &r.Project, &r.Owner, &r.HeldSince)
	})
	if err != nil {
		return nil, fmt.Errorf("models: board gpus: %w", err)
	}
	return out, nil
}

// BoardOptions lists the pools, specs and projects the board's filters offer.
func (s *Store) BoardOptions(ctx context.Context) (pools, specs, projects []string, err error) {
	snap, err := s.boardSnapshot(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	return snap.pools, snap.specs, snap.projects, nil
}

// queryBoardOptions reads the pools, specs and projects the board's filters offer.
func (s *Store) queryBoardOptions(ctx context.Context) (pools, specs, projects []string, err error) {
	db := s.db.WithContext(ctx)
	if err = db.Model(&Pool{}).Order("name").Pluck("name", &pools).Error; err != nil {
		return nil, nil, nil, fmt.Errorf("models: board options: %w", err)
	}
	if err = db.Model(&GPU{}).Joins("JOIN nodes ON nodes.id = gpus.node_id AND nodes.state <> ?", NodeRemoved).
		Distinct("gpus.spec").Order("gpus.spec").Pluck("gpus.spec", &specs).Error; err != nil {
		return nil, nil, nil, fmt.Errorf("models: board options: %w", err)
	}
	if err = db.Model(&Project{}).Order("name").Pluck("name", &projects).Error; err != nil {
		return nil, nil, nil, fmt.Errorf("models: board options: %w", err)
	}
	return pools, specs, projects, nil
}
