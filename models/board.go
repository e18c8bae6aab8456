package models

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
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

// boardHolder is the task holding a GPU, as the board shows it.
type boardHolder struct {
	gpuID, taskID        int64
	task, project, owner string
	startedAt            time.Time
}

// queryBoard reads the board's rows and filter options into snap. The nodes and their GPUs
// come from the fleet cache (fleet_cache.go), read again only after a write to nodes, GPUs or
// pools; what is read each time is small: the pools, the projects' names and the open
// allocations' holders. Every change to the fleet's holders pays this read: one query of
// every GPU joined with its node, pool, open allocation, task and project took 130 ms on a
// quiet Postgres and 354 ms under load at 32,768 GPUs, a parallel hash join and sort of the
// whole fleet every few seconds (BENCHMARKS.md). The rows are in the board's order: by pool
// name, node hostname and GPU index, byte by byte on both databases.
func (s *Store) queryBoard(ctx context.Context, snap *boardSnap) error {
	fleet, err := s.fleetRows(ctx)
	if err != nil {
		return err
	}
	db := s.db.WithContext(ctx)
	var pools []Pool
	if err := db.Select("id", "name", "region", "zone").Order("name").Find(&pools).Error; err != nil {
		return fmt.Errorf("models: board pools: %w", err)
	}
	if err := db.Model(&Project{}).Order("name").Pluck("name", &snap.projects).Error; err != nil {
		return fmt.Errorf("models: board projects: %w", err)
	}
	rows, err := db.Raw(`SELECT allocations.gpu_id, allocations.started_at, tasks.id, tasks.name, projects.name, tasks.owner
		FROM allocations
		JOIN tasks ON tasks.id = allocations.task_id
		JOIN projects ON projects.id = tasks.project_id
		WHERE allocations.ended_at IS NULL`).Rows()
	if err != nil {
		return fmt.Errorf("models: board holders: %w", err)
	}
	holders, err := scanRows(rows, &s.hints.open, func(h *boardHolder) []any {
		return []any{&h.gpuID, &h.startedAt, &h.taskID, &h.task, &h.project, &h.owner}
	})
	if err != nil {
		return fmt.Errorf("models: board holders: %w", err)
	}
	snap.pools = make([]string, len(pools))
	where := make(map[int64]*Pool, len(pools))
	for i := range pools {
		snap.pools[i], where[pools[i].ID] = pools[i].Name, &pools[i]
	}
	held := make(map[int64]*boardHolder, len(holders))
	for i := range holders {
		held[holders[i].gpuID] = &holders[i]
	}
	order := make([]*NodeGPUs, len(fleet))
	n := 0
	for i := range fleet {
		order[i] = &fleet[i]
		n += len(fleet[i].GPUs)
	}
	slices.SortFunc(order, func(a, b *NodeGPUs) int {
		return cmp.Or(strings.Compare(a.Pool, b.Pool), strings.Compare(a.Hostname, b.Hostname), cmp.Compare(a.ID, b.ID))
	})
	snap.rows = make([]BoardGPU, 0, n)
	specs := make(map[string]struct{})
	for _, node := range order {
		var region, zone string
		if p := where[node.PoolID]; p != nil {
			region, zone = p.Region, p.Zone
		}
		for _, g := range node.GPUs {
			r := BoardGPU{GPU: g, Hostname: node.Hostname, NodeState: node.State, LastSeenAt: node.LastSeenAt, Pool: node.Pool,
				Region: region, Zone: zone}
			if h := held[g.ID]; h != nil {
				r.TaskID, r.Task, r.Project, r.Owner, r.HeldSince = h.taskID, h.task, h.project, h.owner, &h.startedAt
			}
			snap.rows = append(snap.rows, r)
			specs[g.Spec] = struct{}{}
		}
	}
	snap.specs = slices.Sorted(maps.Keys(specs))
	return nil
}

// BoardOptions lists the pools, specs and projects the board's filters offer.
func (s *Store) BoardOptions(ctx context.Context) (pools, specs, projects []string, err error) {
	snap, err := s.boardSnapshot(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	return snap.pools, snap.specs, snap.projects, nil
}
