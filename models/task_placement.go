package models

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"gorm.io/gorm"
)

// ActiveTasks returns every task that waits or holds GPUs (waiting-data, queued, starting,
// running) with its project's name, in submit order.
func (s *Store) ActiveTasks(ctx context.Context) ([]TaskRow, error) {
	rows, err := s.db.WithContext(ctx).Raw(`SELECT `+taskScan.columns+`, projects.name FROM tasks
		JOIN projects ON projects.id = tasks.project_id
		WHERE tasks.state IN ? ORDER BY tasks.submitted_at, tasks.id`,
		[]string{TaskWaitingData, TaskQueued, TaskStarting, TaskRunning}).Rows()
	if err == nil {
		var out []TaskRow
		out, err = scanRows(rows, &s.hints.active, func(t *TaskRow) []any { return taskScan.dest(&t.Task, &t.Project) })
		if err == nil {
			return out, nil
		}
	}
	return nil, fmt.Errorf("models: active tasks: %w", err)
}

// NodeGPUs is a node with its pool and GPUs, as the scheduler sees it.
type NodeGPUs struct {
	Node
	Pool string
	Spec string
	GPUs []GPU `gorm:"-"`
}

// Nodes returns every node not removed, with its pool, spec and GPUs ordered by index, each
// GPU with its latest reading and each node with its last-seen time. The nodes and cards
// come from the fleet cache (fleet_cache.go), read again after a write to them.
func (s *Store) Nodes(ctx context.Context) ([]NodeGPUs, error) {
	cached, err := s.fleetRows(ctx)
	if err != nil {
		return nil, err
	}
	nodes := cloneFleet(cached)
	s.live.overlayFleet(nodes)
	return nodes, nil
}

// fleetRows is the nodes not removed with their GPUs as the fleet cache holds them, read
// again when it forgot them: read only, their readings as their rows had them.
func (s *Store) fleetRows(ctx context.Context) ([]NodeGPUs, error) {
	cached, ok, gen := s.fleet.get()
	if ok {
		return cached, nil
	}
	read, err := nodesWithGPUs(s.db.WithContext(ctx), false, &s.hints.fleetGPUs)
	if err != nil {
		return nil, err
	}
	s.fleet.keep(read, gen)
	return read, nil
}

// nodesWithGPUs returns the nodes, removed ones too when removed is set, with their pool, spec
// and GPUs ordered by index; the GPUs of all nodes are read into one array (of the room hint
// gives), which each node's GPUs are a part of.
func nodesWithGPUs(db *gorm.DB, removed bool, hint *sizeHint) ([]NodeGPUs, error) {
	q := `SELECT ` + nodeScan.columns + `, pools.name, pools.spec FROM nodes JOIN pools ON pools.id = nodes.pool_id`
	var args []any
	if !removed {
		q += ` WHERE nodes.state <> ?`
		args = append(args, NodeRemoved)
	}
	rows, err := db.Raw(q+` ORDER BY nodes.id`, args...).Rows()
	if err != nil {
		return nil, fmt.Errorf("models: nodes: %w", err)
	}
	nodes, err := scanRows(rows, nil, func(n *NodeGPUs) []any { return nodeScan.dest(&n.Node, &n.Pool, &n.Spec) })
	if err != nil {
		return nil, fmt.Errorf("models: nodes: %w", err)
	}
	at := make(map[int64]int, len(nodes))
	for i, n := range nodes {
		at[n.ID] = i
	}
	gpus, err := readGPUs(db, hint, "")
	if err != nil {
		return nil, fmt.Errorf("models: gpus: %w", err)
	}
	for first := 0; first < len(gpus); { // each node's GPUs follow each other (node, index order)
		end := first + 1
		for end < len(gpus) && gpus[end].NodeID == gpus[first].NodeID {
			end++
		}
		if i, ok := at[gpus[first].NodeID]; ok {
			nodes[i].GPUs = gpus[first:end:end]
		}
		first = end
	}
	return nodes, nil
}

// OpenAllocations returns the allocations not yet closed, by task and GPU. The order is
// `+task_id`, which SQLite cannot take from the index of the tasks' allocations: ordered by
// `task_id` it read every allocation the deployment ever made in that index's order to keep
// the open ones, on every scheduling pass (a quarter of the demo's CPU at 1,800×); now it
// reads a partial index of the open ones and sorts those.
func (s *Store) OpenAllocations(ctx context.Context) ([]Allocation, error) {
	out, err := readAllocations(s.db.WithContext(ctx), &s.hints.open, openAllocationsSQL())
	if err != nil {
		return nil, fmt.Errorf("models: open allocations: %w", err)
	}
	return out, nil
}

// readAllocations reads the allocations a statement over allocationScan's columns selects,
// into a slice of the room hint gives (none when nil).
func readAllocations(db *gorm.DB, hint *sizeHint, query string, args ...any) ([]Allocation, error) {
	rows, err := db.Raw(query, args...).Rows()
	if err != nil {
		return nil, err
	}
	return scanRows(rows, hint, func(a *Allocation) []any { return allocationScan.dest(a) })
}

// openAllocationsSQL is OpenAllocations' statement.
func openAllocationsSQL() string {
	return `SELECT ` + allocationScan.columns + ` FROM allocations WHERE ended_at IS NULL ORDER BY +task_id, gpu_id`
}

// AllocationsSince returns the allocations open at or after since (open ones included), by
// id. The open ones and those that ended since are two reads, each through its index, sorted
// here: as one condition (`ended_at IS NULL OR ended_at >= ?`), or ordered by id in the
// statement, SQLite read every allocation ever made, once a minute for the fairness.
func (s *Store) AllocationsSince(ctx context.Context, since time.Time) ([]Allocation, error) {
	out, err := readAllocations(s.db.WithContext(ctx), nil, allocationsSinceSQL(), UTC(since))
	if err != nil {
		return nil, fmt.Errorf("models: allocations since %s: %w", since, err)
	}
	slices.SortFunc(out, func(a, b Allocation) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

// allocationsSinceSQL is AllocationsSince's statement.
func allocationsSinceSQL() string {
	return `SELECT ` + allocationScan.columns + ` FROM allocations WHERE ended_at IS NULL UNION ALL SELECT ` +
		allocationScan.columns + ` FROM allocations WHERE ended_at >= ?`
}

// Placement is one task to place on its GPUs, as the scheduler decided.
type Placement struct {
	TaskID int64
	// ProjectID is the task's project when the caller knows it; 0 reads it from the task.
	ProjectID int64
	GPUIDs    []int64
	// Overflow marks the allocations as beyond the project's quota (priced at the overflow
	// rate).
	Overflow bool
	Reason   string
}

// PlaceTask gives GPUs to a queued task: the task becomes starting and one allocation opens
// per GPU, on the GPU's node, all in one transaction. The task's node is its first GPU's. It
// returns ErrConflict (wrapped) when the task is no longer queued or a GPU is not free on a
// ready node; then nothing changes.
func (s *Store) PlaceTask(ctx context.Context, taskID int64, gpuIDs []int64, overflow bool, reason string, now time.Time) error {
	p := Placement{TaskID: taskID, GPUIDs: gpuIDs, Overflow: overflow, Reason: reason}
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		refused, err := placeAll(tx, []Placement{p}, UTC(now))
		if err != nil {
			return err
		}
		return refused[0]
	})
	if err != nil && !errors.Is(err, ErrConflict) && !errors.Is(err, ErrNotFound) {
		return fmt.Errorf("models: place task %d: %w", taskID, err)
	}
	return err
}

// PlaceTasks places a tick's tasks in one transaction: a placement that lost a race
// (ErrConflict, ErrNotFound) is found before it writes anything, is skipped, and the others
// stand. It returns how many were placed.
func (s *Store) PlaceTasks(ctx context.Context, ps []Placement, now time.Time) (int, error) {
	placed := 0
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		refused, err := placeAll(tx, ps, UTC(now))
		placed = len(ps)
		for _, r := range refused {
			if r != nil {
				placed--
			}
		}
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("models: place tasks: %w", err)
	}
	return placed, nil
}

// placeAll places ps in order inside a transaction and returns, for each, nil or why it was
// refused (ErrConflict, ErrNotFound); err is any other error, which ends the transaction.
// The tasks, their GPUs' nodes and the GPUs' allocations are read once for all of them, and
// each placement is checked against those reads and the placements before it: every
// conflict is found before anything is written. The tasks' conditional update (startTasks)
// is the first write; the allocations and the nodes' assignment stamps follow together.
func placeAll(tx *gorm.DB, ps []Placement, now time.Time) (refused []error, err error) {
	refused = make([]error, len(ps))
	r, err := readPlacing(tx, ps, now)
	if err != nil {
		return nil, err
	}
	var (
		starts []start
		placed []int // the placement of each start
	)
	for i, p := range ps {
		if refused[i] = r.check(p); refused[i] != nil {
			continue
		}
		// A card freed after the caller read its clock (an exit reported while a scheduler
		// tick read its snapshot) is given again when it was freed, not before: no
		// card-second is in the ledger twice.
		at := now
		for _, g := range p.GPUIDs {
			if f, ok := r.freed[g]; ok && f.After(at) {
				at = f
			}
			r.held[g]++
		}
		starts = append(starts, start{taskID: p.TaskID, nodeID: r.nodeOf[p.GPUIDs[0]], reason: p.Reason, at: at})
		placed = append(placed, i)
	}
	if len(starts) == 0 {
		return refused, nil
	}
	started, err := startTasks(tx, starts)
	if err != nil {
		return nil, err
	}
	var (
		rows  []Allocation
		nodes []int64
	)
	for k, i := range placed {
		p, st := ps[i], starts[k]
		if refused[i] = started[k]; refused[i] != nil {
			continue
		}
		t := r.tasks[p.TaskID]
		if p.ProjectID == 0 {
			p.ProjectID = t.ProjectID
		}
		for _, g := range p.GPUIDs {
			rows = append(rows, Allocation{TaskID: p.TaskID, GPUID: g, NodeID: r.nodeOf[g], ProjectID: p.ProjectID, StartedAt: st.at,
				Overflow: p.Overflow, Attempt: max(t.Attempt, 1), Trial: t.TrialID != nil})
			nodes = append(nodes, r.nodeOf[g])
		}
	}
	if len(rows) == 0 {
		return refused, nil
	}
	// The partial unique index on open allocations is the last guard against a double grant.
	if err := tx.CreateInBatches(&rows, 500).Error; err != nil {
		return nil, err
	}
	return refused, assignmentsChanged(tx, nodes)
}

// placing is what placeAll reads once for a tick's placements.
type placing struct {
	tasks map[int64]Task
	// nodeOf is the node of each GPU on a ready node: a node drained or removed since the
	// scheduler's snapshot takes no new task.
	nodeOf map[int64]int64
	// held counts each GPU's open allocations; freed is the latest end after now of each
	// GPU's closed ones.
	held  map[int64]int
	freed map[int64]time.Time
}

// placingChunk bounds the ids of one read, under SQLite's limit on a statement's values.
const placingChunk = 1000

// readPlacing reads the tasks and GPUs of ps.
func readPlacing(tx *gorm.DB, ps []Placement, now time.Time) (placing, error) {
	r := placing{tasks: map[int64]Task{}, nodeOf: map[int64]int64{}, held: map[int64]int{}, freed: map[int64]time.Time{}}
	var taskIDs, gpuIDs []int64
	for _, p := range ps {
		taskIDs = append(taskIDs, p.TaskID)
		gpuIDs = append(gpuIDs, p.GPUIDs...)
	}
	slices.Sort(gpuIDs)
	gpuIDs = slices.Compact(gpuIDs)
	for ids := range slices.Chunk(taskIDs, placingChunk) {
		var tasks []Task
		if err := tx.Select("id, project_id, state, attempt, trial_id").Where("id IN ?", ids).Find(&tasks).Error; err != nil {
			return r, err
		}
		for _, t := range tasks {
			r.tasks[t.ID] = t
		}
	}
	for ids := range slices.Chunk(gpuIDs, placingChunk) {
		var gpus []GPU
		err := tx.Select("gpus.id, gpus.node_id").Joins("JOIN nodes ON nodes.id = gpus.node_id").
			Where("gpus.id IN ? AND nodes.state = ?", ids, NodeReady).Find(&gpus).Error
		if err != nil {
			return r, err
		}
		for _, g := range gpus {
			r.nodeOf[g.ID] = g.NodeID
		}
		var allocs []Allocation
		err = tx.Select("gpu_id, ended_at").Where("gpu_id IN ? AND (ended_at IS NULL OR ended_at > ?)", ids, now).Find(&allocs).Error
		if err != nil {
			return r, err
		}
		for _, a := range allocs {
			switch {
			case a.EndedAt == nil:
				r.held[a.GPUID]++
			case a.EndedAt.After(r.freed[a.GPUID]):
				r.freed[a.GPUID] = UTC(*a.EndedAt)
			}
		}
	}
	return r, nil
}

// check finds why p cannot be placed now, before it writes anything: its task is gone or no
// longer queued, or a GPU is not on a ready node or is held (by a placement before it too).
func (r placing) check(p Placement) error {
	t, ok := r.tasks[p.TaskID]
	if !ok {
		return notFound(fmt.Sprintf("task %d", p.TaskID), gorm.ErrRecordNotFound)
	}
	if t.State != TaskQueued {
		return fmt.Errorf("models: task %d is %s: %w", p.TaskID, t.State, ErrConflict)
	}
	ready, held := 0, 0
	for i, g := range p.GPUIDs {
		if _, ok := r.nodeOf[g]; ok && !slices.Contains(p.GPUIDs[:i], g) {
			ready++
		}
		held += r.held[g]
	}
	if ready != len(p.GPUIDs) || ready == 0 {
		return fmt.Errorf("models: place task %d: %d of %d GPUs are on ready nodes: %w", p.TaskID, ready, len(p.GPUIDs), ErrConflict)
	}
	if held > 0 {
		return fmt.Errorf("models: %d GPUs of task %d are already held: %w", held, p.TaskID, ErrConflict)
	}
	return nil
}

// SetWaitReasons stores why each waiting task waits, as the scheduler explained it.
func (s *Store) SetWaitReasons(ctx context.Context, reasons map[int64]string) error {
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		for id, r := range reasons {
			err := tx.Model(&Task{}).Where("id = ? AND state IN ?", id, []string{TaskWaitingData, TaskQueued}).
				Update("reason", truncate(r, 500)).Error
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("models: set wait reasons: %w", err)
	}
	return nil
}
