package models

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"gorm.io/gorm"
)

// History is a finished stretch of the past stored at once: machines that came and went,
// tasks that ended on their cards, and the 5-minute rollups of what those cards did. The demo
// fills its past month with it from a replay of its task stream through the production
// scheduler.
type History struct {
	Nodes []HistoryNode
	Tasks []HistoryTask
	// Rollups are 5-minute buckets of the nodes' cards; GPUID is the card's index in its
	// node's GPUs list, Node the node's index in Nodes.
	Rollups []HistoryRollup
	// Events are the scaling loop's actions on the nodes' pools, with their reasons.
	Events []HistoryEvent
}

// HistoryEvent is one scaling action of the past: Node indexes into History's Nodes, -1 for
// an action of no node (a scale-up).
type HistoryEvent struct {
	Pool         string
	At           time.Time
	Kind, Reason string
	FromSize, To int
	Node         int
}

// HistoryNode is a machine of a pool over [From, To), removed since.
type HistoryNode struct {
	Pool, Hostname string
	GPUs           []GPUInfo
	From, To       time.Time
}

// HistoryTask is a task that ran and ended: Cards are its allocations.
type HistoryTask struct {
	NewTask
	State, Reason                   string
	ExitCode                        int
	SubmittedAt, StartedAt, EndedAt time.Time
	Cards                           []HistoryCard
}

// HistoryCard is one card a history task held: card GPU of node Node (indexes into History's
// Nodes and that node's GPUs).
type HistoryCard struct{ Node, GPU int }

// HistoryRollup is one 5-minute bucket of card GPU of node Node.
type HistoryRollup struct {
	Node, GPU int
	GPURollup
}

// Add sums o's readings into r, a bucket of the same card.
func (r *GPURollup) Add(o GPURollup) {
	r.N += o.N
	r.UtilSum += o.UtilSum
	r.UtilMax = max(r.UtilMax, o.UtilMax)
	r.MemSum += o.MemSum
	r.MemMax = max(r.MemMax, o.MemMax)
	r.NIdle += o.NIdle
	r.NActive += o.NActive
}

// ImportHistory stores h: first the nodes (removed, their cards kept for the ledger), then the
// 5-minute rollups (what bills and reports read) in transactions of rollupChunk rows, so that
// a running server's writers are never kept waiting long, then the tasks with their events
// and closed allocations in one transaction, which makes the past count at once. Its
// projects and pools must exist. It is meant for an empty past: it does not merge with tasks or
// samples already stored over the same time.
func (s *Store) ImportHistory(ctx context.Context, h History) error {
	db := s.db.WithContext(ctx)
	var gpuIDs [][]int64
	var nodeIDs []int64
	err := db.Transaction(func(tx *gorm.DB) error {
		var err error
		gpuIDs, nodeIDs, err = importNodes(tx, h.Nodes)
		if err != nil {
			return err
		}
		return importEvents(tx, h.Events, nodeIDs)
	})
	if err != nil {
		return fmt.Errorf("models: import history: %w", err)
	}
	for lo := 0; lo < len(h.Rollups); lo += rollupChunk {
		chunk := h.Rollups[lo:min(lo+rollupChunk, len(h.Rollups))]
		if err := db.Transaction(func(tx *gorm.DB) error { return importRollups(tx, chunk, gpuIDs) }); err != nil {
			return fmt.Errorf("models: import history: %w", err)
		}
	}
	if err := db.Transaction(func(tx *gorm.DB) error { return importTasks(tx, h.Tasks, gpuIDs, nodeIDs) }); err != nil {
		return fmt.Errorf("models: import history: %w", err)
	}
	return nil
}

// rollupChunk is how many rollups one transaction of ImportHistory writes.
const rollupChunk = 20_000

// importNodes stores the history's nodes and their cards; it returns their ids.
func importNodes(tx *gorm.DB, nodes []HistoryNode) (gpuIDs [][]int64, nodeIDs []int64, err error) {
	gpuIDs, nodeIDs = make([][]int64, len(nodes)), make([]int64, len(nodes))
	for i, hn := range nodes {
		var pool Pool
		if err := tx.Where("name = ?", hn.Pool).Take(&pool).Error; err != nil {
			return nil, nil, notFound("pool "+hn.Pool, err)
		}
		// No token hashes to the stored "past:" value: nothing can speak for a past node.
		n := Node{PoolID: pool.ID, Hostname: hn.Hostname, MachineID: hn.Hostname, TokenHash: "past:" + hn.Hostname,
			State: NodeRemoved, RegisteredAt: UTC(hn.From), LastSeenAt: UTC(hn.To)}
		if err := tx.Create(&n).Error; err != nil {
			return nil, nil, err
		}
		nodeIDs[i] = n.ID
		gpus := make([]GPU, len(hn.GPUs))
		for k, g := range hn.GPUs {
			gpus[k] = GPU{NodeID: n.ID, UUID: g.UUID, Index: g.Index, Name: g.Name, Spec: pool.Spec, MemoryTotalMiB: g.MemoryTotalMiB}
		}
		if len(gpus) > 0 {
			if err := tx.Create(&gpus).Error; err != nil {
				return nil, nil, err
			}
		}
		for _, g := range gpus {
			gpuIDs[i] = append(gpuIDs[i], g.ID)
		}
	}
	return gpuIDs, nodeIDs, nil
}

// importEvents stores the history's scaling events, a statement for all.
func importEvents(tx *gorm.DB, events []HistoryEvent, nodeIDs []int64) error {
	if len(events) == 0 {
		return nil
	}
	pools := map[string]int64{}
	rows := make([]ScalingEvent, 0, len(events))
	for _, e := range events {
		id, ok := pools[e.Pool]
		if !ok {
			var pool Pool
			if err := tx.Where("name = ?", e.Pool).Take(&pool).Error; err != nil {
				return notFound("pool "+e.Pool, err)
			}
			id, pools[e.Pool] = pool.ID, pool.ID
		}
		ev := ScalingEvent{At: UTC(e.At), PoolID: id, Kind: truncate(e.Kind, 30), FromSize: e.FromSize, ToSize: e.To, Reason: truncate(e.Reason, 50)}
		if e.Node >= 0 && e.Node < len(nodeIDs) {
			ev.NodeID = &nodeIDs[e.Node]
		}
		rows = append(rows, ev)
	}
	return tx.CreateInBatches(&rows, 500).Error
}

// importRollups writes rollups, plain integers, as literals many rows a statement: a month of
// a fleet's cards is most of a million rows.
func importRollups(tx *gorm.DB, rollups []HistoryRollup, gpuIDs [][]int64) error {
	var b strings.Builder
	flush := func() error {
		if b.Len() == 0 {
			return nil
		}
		err := tx.Exec(`INSERT INTO gpu_rollups (gpu_id, resolution, bucket, n, util_sum, util_max, mem_sum, mem_max, n_idle, n_active, idle_pct, active_pct) VALUES ` + b.String()).Error
		b.Reset()
		return err
	}
	for i, r := range rollups {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('(')
		for k, v := range [...]int64{gpuIDs[r.Node][r.GPU], Rollup5m, r.Bucket, r.N, r.UtilSum, int64(r.UtilMax), r.MemSum,
			r.MemMax, r.NIdle, r.NActive, int64(r.IdlePct), int64(r.ActivePct)} {
			if k > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatInt(v, 10))
		}
		b.WriteByte(')')
		if i%5000 == 4999 {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// importTasks stores the history's tasks, their events and their closed allocations.
func importTasks(tx *gorm.DB, hts []HistoryTask, gpuIDs [][]int64, nodeIDs []int64) error {
	projects := make(map[string]int64)
	tasks := make([]Task, 0, len(hts))
	for _, ht := range hts {
		pid, ok := projects[ht.Project]
		if !ok {
			var p Project
			if err := tx.Where("name = ?", ht.Project).Take(&p).Error; err != nil {
				return notFound("project "+ht.Project, err)
			}
			pid, projects[ht.Project] = p.ID, p.ID
		}
		cmd, err := json.Marshal(ht.Command)
		if err != nil {
			return err
		}
		started, ended, code := UTC(ht.StartedAt), UTC(ht.EndedAt), ht.ExitCode
		t := Task{ProjectID: pid, Name: ht.Name, Owner: ht.Owner, GPUs: ht.GPUs, Spec: ht.Spec, Queue: ht.Queue,
			Priority: ht.Priority, EstGPUHours: ht.EstGPUHours, MaxRuntimeS: int64(ht.MaxRuntime / time.Second),
			Command: string(cmd), Env: "{}", DataReady: true, Deferrable: ht.Deferrable, State: ht.State, Reason: ht.Reason,
			SubmittedAt: UTC(ht.SubmittedAt), StartedAt: &started, EndedAt: &ended, ExitCode: &code, Attempt: 1, MaxAttempts: 1}
		if len(ht.Cards) > 0 {
			t.NodeID = &nodeIDs[ht.Cards[0].Node]
		}
		tasks = append(tasks, t)
	}
	if len(tasks) == 0 {
		return nil
	}
	if err := tx.CreateInBatches(&tasks, 500).Error; err != nil {
		return err
	}
	var allocs []Allocation
	var events []TaskEvent
	for i, ht := range hts {
		t := tasks[i]
		for _, c := range ht.Cards {
			allocs = append(allocs, Allocation{TaskID: t.ID, GPUID: gpuIDs[c.Node][c.GPU], NodeID: nodeIDs[c.Node],
				ProjectID: t.ProjectID, StartedAt: *t.StartedAt, EndedAt: t.EndedAt, Attempt: 1})
		}
		events = append(events,
			TaskEvent{TaskID: t.ID, At: t.SubmittedAt, To: TaskQueued, Reason: "submitted"},
			TaskEvent{TaskID: t.ID, At: *t.StartedAt, From: TaskQueued, To: TaskRunning, Reason: "placed"},
			TaskEvent{TaskID: t.ID, At: *t.EndedAt, From: TaskRunning, To: t.State, Reason: t.Reason})
	}
	if len(allocs) > 0 {
		if err := tx.CreateInBatches(&allocs, 1000).Error; err != nil {
			return err
		}
	}
	return tx.CreateInBatches(&events, 1000).Error
}
