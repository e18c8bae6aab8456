package models

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"gorm.io/gorm"
)

// SetCheckpoint records a task's last checkpoint, as the node agent's reports will.
func SetCheckpoint(ctx context.Context, s *Store, taskID int64, at time.Time) error {
	return s.db.WithContext(ctx).Table("tasks").Where("id = ?", taskID).Update("last_checkpoint_at", UTC(at)).Error
}

// RefreshBoard reads the board's snapshot again, as the first request after a change does.
func RefreshBoard(ctx context.Context, s *Store) error {
	s.gen.Add(1)
	_, err := s.refreshBoard(ctx, true)
	return err
}

// BoardGen is the count of writes that made the board's snapshot stale.
func BoardGen(s *Store) uint64 { return s.gen.Load() }

// BoardSnapGen is the change count the board's snapshot was read at; 0 before the first.
func BoardSnapGen(s *Store) uint64 {
	if snap := s.board.snap.Load(); snap != nil {
		return snap.gen
	}
	return 0
}

// InsertSampleRows stores raw samples as they are, for the retention tests.
func InsertSampleRows(ctx context.Context, s *Store, rows []GPUSample) error {
	return s.db.WithContext(ctx).CreateInBatches(rows, 500).Error
}

// CountSampleDeletes counts, from now on, the statements that delete raw samples.
func CountSampleDeletes(s *Store) *atomic.Int64 {
	var n atomic.Int64
	s.db.Callback().Delete().After("gorm:delete").Register("test:count-sample-deletes", func(db *gorm.DB) {
		if db.Statement.Table == "gpu_samples" {
			n.Add(1)
		}
	})
	return &n
}

// RawSamples returns a GPU's raw samples, oldest first.
func RawSamples(ctx context.Context, s *Store, gpuID int64) ([]GPUSample, error) {
	var out []GPUSample
	err := s.db.WithContext(ctx).Where("gpu_id = ?", gpuID).Order("ts").Find(&out).Error
	return out, err
}

// DB is the store's GORM handle, for tests of how statements meet the connection pool.
func DB(s *Store) *gorm.DB { return s.db }

// InsertReservations stores booked windows as they are, for the ceilings' benchmark.
func InsertReservations(ctx context.Context, s *Store, rows []Reservation) error {
	return s.db.WithContext(ctx).CreateInBatches(rows, 500).Error
}

// LiveSize is the count of GPUs and nodes the live view holds.
func LiveSize(s *Store) (gpus, nodes int) {
	s.live.mu.RLock()
	defer s.live.mu.RUnlock()
	return len(s.live.gpus), len(s.live.nodes)
}

// MarkRemoved marks a node removed, as RemoveNode does once the loop drained it.
func MarkRemoved(ctx context.Context, s *Store, nodeID int64) error {
	return s.db.WithContext(ctx).Model(&Node{}).Where("id = ?", nodeID).Update("state", NodeRemoved).Error
}

// WriteReadings writes the GPUs' readings not yet in their rows, as the write-behind does
// every interval.
func WriteReadings(ctx context.Context, s *Store) error { return s.writeReadings(ctx) }

// RemoveMemberInTx removes a membership in a transaction and calls during before it commits.
func RemoveMemberInTx(ctx context.Context, s *Store, projectID, userID int64, during func()) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Where("project_id = ? AND user_id = ?", projectID, userID).Delete(&ProjectMember{}).Error; err != nil {
			return err
		}
		during()
		return nil
	})
}

// CommitSubmitsTogether writes nts as one group of the submit committer, as submits that
// arrive at once are, and returns each one's answer in order.
func CommitSubmitsTogether(s *Store, nts []NewTask, now time.Time) (tasks []Task, created []bool, errs []error) {
	group := make([]*submitJob, len(nts))
	for i, nt := range nts {
		group[i] = &submitJob{ctx: context.Background(), nt: nt, lim: DefaultTaskLimits, now: UTC(now), done: make(chan submitDone, 1)}
	}
	s.commitSubmits(group)
	for _, j := range group {
		d := <-j.done
		tasks, created, errs = append(tasks, d.t), append(created, d.created), append(errs, d.err)
	}
	return tasks, created, errs
}

// StartTasks starts the tasks ids on node at, as a tick's placements do, in a transaction
// of its own, and returns why each did not start.
func StartTasks(s *Store, node int64, reason string, at time.Time, ids ...int64) (refused []error, err error) {
	starts := make([]start, len(ids))
	for i, id := range ids {
		starts[i] = start{taskID: id, nodeID: node, reason: reason, at: UTC(at)}
	}
	err = s.db.Transaction(func(tx *gorm.DB) error {
		refused, err = startTasks(tx, starts)
		return err
	})
	return refused, err
}

// CommitWritesTogether runs fns as one group of the grouped writes, each under its ctx, as
// agents' writes that arrive at once are, and returns each one's answer in order.
func CommitWritesTogether(s *Store, ctxs []context.Context, fns []func(tx *gorm.DB) error) []error {
	group := make([]*groupedWrite, len(fns))
	for i, fn := range fns {
		group[i] = &groupedWrite{ctx: ctxs[i], fn: fn, done: make(chan error, 1)}
	}
	s.commitWrites(group)
	errs := make([]error, len(group))
	for i, j := range group {
		errs[i] = <-j.done
	}
	return errs
}

// FreshNodes reads the fleet as Nodes does, from the database, past the fleet cache.
func FreshNodes(ctx context.Context, s *Store) ([]NodeGPUs, error) {
	nodes, err := nodesWithGPUs(s.db.WithContext(ctx), false, nil)
	s.live.overlayFleet(nodes)
	return nodes, err
}

// ScanRow reads table's row id through T's rowScan (row_scan.go).
func ScanRow[T any](ctx context.Context, s *Store, table string, id int64) (T, error) {
	sc := newRowScan[T](table)
	var zero T
	rows, err := s.db.WithContext(ctx).Raw(`SELECT `+sc.columns+` FROM `+table+` WHERE id = ?`, id).Rows()
	if err != nil {
		return zero, err
	}
	out, err := scanRows(rows, nil, func(r *T) []any { return sc.dest(r) })
	if err != nil || len(out) != 1 {
		return zero, fmt.Errorf("%d rows: %w", len(out), err)
	}
	return out[0], nil
}

// WriteTurn is how long one transaction of grouped writes goes on taking the next.
const WriteTurn = writeTurn

// IsPostgres reports whether s is on Postgres.
func IsPostgres(s *Store) bool { return s.postgres }

// Rollup5mArgs are the 5-minute rollup's arguments for the GPUs ids and the bucket at from.
func Rollup5mArgs(s *Store, from int64, ids []int64) []any {
	return rollup5mArgs(s.Thresholds(), from, ids)
}

// The statements whose plans tests read.
const (
	Rollup5mSQL             = rollup5m
	ServiceReplicasSinceSQL = serviceReplicasSince
)

// Explain is the database's plan of query, one line of it a string; on Postgres with
// sequential scans off, as on a table of a real deployment's size (a few test rows are
// cheaper to read whole).
func Explain(ctx context.Context, s *Store, query string, args ...any) ([]string, error) {
	var plan []string
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		explain := "EXPLAIN QUERY PLAN "
		if s.postgres {
			explain = "EXPLAIN "
			if err := tx.Exec("SET LOCAL enable_seqscan = off").Error; err != nil {
				return err
			}
		}
		rows, err := tx.Raw(explain+query, args...).Rows()
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id, parent, unused int
			var line string
			dest := []any{&id, &parent, &unused, &line} // SQLite's plan: the detail is the fourth
			if s.postgres {
				dest = []any{&line} // Postgres's: one line a row
			}
			if err := rows.Scan(dest...); err != nil {
				return err
			}
			plan = append(plan, line)
		}
		return rows.Err()
	})
	return plan, err
}

// ReadPoolMemory is PoolMemory read whole from the samples, with no bucket kept.
func ReadPoolMemory(ctx context.Context, s *Store, poolID int64, from, to time.Time, bucket time.Duration) ([]MemoryPoint, error) {
	b := int64(bucket / time.Second)
	return s.readPoolMemory(ctx, poolID, from.Unix()-from.Unix()%b, to.Unix(), b)
}

// BoardByJoin is every GPU of a node not removed with its node, pool and holder, read by one
// join in the board's order: the board's rows as one query gave them before the board read
// its fleet from the fleet cache, kept as the reference the board is compared with.
func BoardByJoin(ctx context.Context, s *Store) ([]BoardGPU, error) {
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
		return nil, err
	}
	return scanRows(rows, nil, func(r *BoardGPU) []any {
		return gpuScan.dest(&r.GPU, &r.Hostname, &r.NodeState, &r.LastSeenAt, &r.Pool, &r.Region, &r.Zone,
			&r.TaskID, &r.Task, &r.Project, &r.Owner, &r.HeldSince)
	})
}

// SampleSpan is the first and last time of a sample in [from, to), nil when none.
func SampleSpan(ctx context.Context, s *Store, from, to int64) (lo, hi *int64, err error) {
	span, err := sampleSpan(s.db.WithContext(ctx), from, to)
	return span.Lo, span.Hi, err
}

// The quotas' use reads (quota_usage.go).
const (
	UsageUnkeptSQL       = usageUnkept
	UsageSettledSinceSQL = usageSettledSince
)

// TaskSpansSQL is TaskSpans' statement.
const TaskSpansSQL = taskSpansSQL

// OpenAllocationsSQL is OpenAllocations' statement.
func OpenAllocationsSQL() string { return openAllocationsSQL() }

// AllocationsSinceSQL is AllocationsSince's statement.
func AllocationsSinceSQL() string { return allocationsSinceSQL() }

// UsageBuilt is when the quotas' kept use was last read whole (clock time).
func UsageBuilt(s *Store) time.Time {
	s.usage.mu.Lock()
	defer s.usage.mu.Unlock()
	return s.usage.built
}
