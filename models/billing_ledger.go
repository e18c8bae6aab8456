package models

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"gorm.io/gorm"
)

// LedgerQuery selects the ledger rows of the period [From, To) (UTC), of one project or, when
// ProjectID is 0, of all.
type LedgerQuery struct {
	From, To  time.Time
	ProjectID int64
	// HeldOnly leaves the GPUs' rollups out (LedgerGPUs gives none): what was held, and
	// when, without how the cards were used.
	HeldOnly bool
}

// where is the SQL condition and arguments for allocations overlapping the period.
func (q LedgerQuery) where(alias string) (string, []any) {
	cond := alias + "started_at < ? AND (" + alias + "ended_at IS NULL OR " + alias + "ended_at > ?)"
	args := []any{UTC(q.To), UTC(q.From)}
	if q.ProjectID != 0 {
		cond += " AND " + alias + "project_id = ?"
		args = append(args, q.ProjectID)
	}
	return cond, args
}

// LedgerAllocation is an allocation as the ledger reads it, with its GPU's spec. Times are
// Unix seconds (UTC), as rollup buckets are: a month holds a million allocations and the
// ledger does integer arithmetic on them.
type LedgerAllocation struct {
	ID        int64
	TaskID    int64
	GPUID     int64
	NodeID    int64
	ProjectID int64
	Spec      string
	Start     int64
	// End is 0 while the allocation is open.
	End      int64
	Overflow bool
	// RerunFrom is from when the allocation's seconds were lost to a rerun of its task
	// (Allocation.RerunFrom); 0 for an attempt that was not rerun.
	RerunFrom int64
	// Trial is set for an allocation of a trial's run (Allocation.Trial): its seconds are
	// the trial class.
	Trial bool
}

// LedgerAllocations returns the allocations that overlap the period, open ones included, by
// id. It reads rows straight from the driver, timestamps as Unix seconds (see unixCol): a
// month holds a million of them. A large id range is read in a few parts at once, one per
// core, and joined in id order.
func (s *Store) LedgerAllocations(ctx context.Context, q LedgerQuery) ([]LedgerAllocation, error) {
	db := s.db.WithContext(ctx)
	specs, err := gpuSpecs(db)
	if err != nil {
		return nil, err
	}
	var lo, hi sql.NullInt64
	if err := db.Raw(`SELECT (SELECT MIN(id) FROM allocations), (SELECT MAX(id) FROM allocations)`).Row().Scan(&lo, &hi); err != nil {
		return nil, fmt.Errorf("models: ledger allocations: %w", err)
	}
	parts := 1
	if n := hi.Int64 - lo.Int64; n >= 200_000 {
		parts = min(runtime.GOMAXPROCS(0), 4) // the SQLite pool holds 4 connections
	}
	if parts <= 1 {
		blocks, n, err := s.ledgerAllocations(ctx, q, specs, 0, 0)
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, nil
		}
		if len(blocks) == 1 {
			return blocks[0], nil
		}
		return joinBlocks(make([]LedgerAllocation, 0, n), blocks), nil
	}
	res := make([][][]LedgerAllocation, parts)
	counts := make([]int, parts)
	errs := make([]error, parts)
	step := (hi.Int64 - lo.Int64 + int64(parts)) / int64(parts)
	var wg sync.WaitGroup
	for i := range parts {
		from := lo.Int64 + int64(i)*step
		to := from + step - 1
		if i == parts-1 {
			to = hi.Int64
		}
		wg.Go(func() { res[i], counts[i], errs[i] = s.ledgerAllocations(ctx, q, specs, from, to) })
	}
	wg.Wait()
	n := 0
	for i := range parts {
		if errs[i] != nil {
			return nil, errs[i]
		}
		n += counts[i]
	}
	out := make([]LedgerAllocation, 0, n)
	for _, r := range res {
		out = joinBlocks(out, r)
	}
	return out, nil
}

// joinBlocks appends the blocks to out.
func joinBlocks(out []LedgerAllocation, blocks [][]LedgerAllocation) []LedgerAllocation {
	for _, b := range blocks {
		out = append(out, b...)
	}
	return out
}

// ledgerAllocations reads the allocations of the query with ids in [from, to], or all when to
// is 0, by id, in blocks (to be joined once), and their number.
func (s *Store) ledgerAllocations(ctx context.Context, q LedgerQuery, specs map[int64]string, from, to int64) ([][]LedgerAllocation, int, error) {
	cond, args := q.where("")
	if to != 0 {
		cond += " AND id >= ? AND id <= ?"
		args = append(args, from, to)
	}
	// Rows go into blocks that are joined once at the end, rather than into one slice that
	// is copied each time it grows.
	const block = 1 << 16
	var (
		blocks [][]LedgerAllocation
		cur    = make([]LedgerAllocation, 0, 1024)
		n      int
	)
	err := s.eachRow(ctx, `SELECT `+s.ledgerAllocationCols()+` FROM allocations WHERE `+cond+` ORDER BY id`, args, func(v []driver.Value) error {
		a, err := ledgerAllocation(v, specs)
		if err != nil {
			return err
		}
		if len(cur) == cap(cur) {
			blocks = append(blocks, cur)
			cur = make([]LedgerAllocation, 0, block)
		}
		cur = append(cur, a)
		n++
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("models: ledger allocations: %w", err)
	}
	return append(blocks, cur), n, nil
}

// ledgerAllocationCols are the columns ledgerAllocation reads, timestamps as Unix seconds.
func (s *Store) ledgerAllocationCols() string {
	return "id, task_id, gpu_id, node_id, project_id, " + s.unixCol("started_at", false) + ", " +
		s.unixCol("ended_at", true) + ", overflow, " + s.unixCol("rerun_from", true) + ", trial"
}

// ledgerAllocation is a row of ledgerAllocationCols, its spec from specs.
func ledgerAllocation(v []driver.Value, specs map[int64]string) (LedgerAllocation, error) {
	var (
		a     LedgerAllocation
		errs  [10]error
		over  int64
		trial int64
	)
	a.ID, errs[0] = valueInt(v[0])
	a.TaskID, errs[1] = valueInt(v[1])
	a.GPUID, errs[2] = valueInt(v[2])
	a.NodeID, errs[3] = valueInt(v[3])
	a.ProjectID, errs[4] = valueInt(v[4])
	a.Start, errs[5] = valueTime(v[5], false)
	a.End, errs[6] = valueTime(v[6], true)
	over, errs[7] = valueInt(v[7])
	a.RerunFrom, errs[8] = valueTime(v[8], true)
	trial, errs[9] = valueInt(v[9])
	if err := errors.Join(errs[:]...); err != nil {
		return a, fmt.Errorf("allocation %v: %w", v[0], err)
	}
	a.Overflow, a.Trial = over != 0, trial != 0
	a.Spec = specs[a.GPUID]
	return a, nil
}

// eachRow runs query and calls f with each row's values as the driver gives them (valid
// until f returns). On SQLite it reads from the driver's own rows, past database/sql's
// conversions: what makes a million rows cheap.
func (s *Store) eachRow(ctx context.Context, query string, args []any, f func([]driver.Value) error) error {
	if s.postgres {
		rows, err := s.db.WithContext(ctx).Raw(query, args...).Rows()
		if err != nil {
			return err
		}
		defer rows.Close()
		cols, err := rows.Columns()
		if err != nil {
			return err
		}
		vals := make([]any, len(cols))
		dest := make([]any, len(cols))
		dv := make([]driver.Value, len(cols))
		for i := range vals {
			dest[i] = &vals[i]
		}
		for rows.Next() {
			if err := rows.Scan(dest...); err != nil {
				return err
			}
			for i, v := range vals {
				dv[i] = v
			}
			if err := f(dv); err != nil {
				return err
			}
		}
		return rows.Err()
	}
	conn, err := s.readPool(ctx).Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		qc, ok := dc.(driver.QueryerContext)
		if !ok {
			return fmt.Errorf("driver %T cannot query", dc)
		}
		nv := make([]driver.NamedValue, len(args))
		for i, a := range args {
			nv[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
		}
		// The driver honours a context that can end at every step, taking two locks a row;
		// these queries stream from an index, so the context is checked here every
		// cancelCheck rows instead.
		rows, err := qc.QueryContext(context.WithoutCancel(ctx), query, nv)
		if err != nil {
			return err
		}
		defer rows.Close()
		dest := make([]driver.Value, len(rows.Columns()))
		for n := 1; ; n++ {
			if err := rows.Next(dest); err == io.EOF {
				return nil
			} else if err != nil {
				return err
			}
			if err := f(dest); err != nil {
				return err
			}
			if n%cancelCheck == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
		}
	})
}

// cancelCheck is how many rows eachRow reads between looks at its context.
const cancelCheck = 1024

// valueInt is an integer (or boolean) column's value.
func valueInt(v driver.Value) (int64, error) {
	switch x := v.(type) {
	case int64:
		return x, nil
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	}
	return 0, fmt.Errorf("%T %v is not an integer", v, v)
}

// valueFloat is a real or numeric column's value (Postgres gives a numeric as text).
func valueFloat(v driver.Value) (float64, error) {
	switch x := v.(type) {
	case float64:
		return x, nil
	case int64:
		return float64(x), nil
	case string:
		return strconv.ParseFloat(x, 64)
	case []byte:
		return strconv.ParseFloat(string(x), 64)
	case nil:
		return 0, nil
	}
	return 0, fmt.Errorf("%T %v is not a number", v, v)
}

// estimatedSeconds is an estimate in card-hours as whole card-seconds, rounded; a negative or
// absurd estimate is 0.
func estimatedSeconds(hours float64) int64 {
	if !(hours > 0) || hours > 1e12 {
		return 0
	}
	return int64(math.Round(hours * 3600))
}

// valueString is a text column's value; with seen, equal values share one string.
func valueString(v driver.Value, seen map[string]string) (string, error) {
	var x string
	switch b := v.(type) {
	case string:
		x = b
	case []byte:
		if seen != nil {
			if y, ok := seen[string(b)]; ok {
				return y, nil
			}
		}
		x = string(b)
	default:
		return "", fmt.Errorf("%T %v is not text", v, v)
	}
	if seen != nil {
		if y, ok := seen[x]; ok {
			return y, nil
		}
		seen[x] = x
	}
	return x, nil
}

// valueTime is a timestamp column's value read through unixCol, as Unix seconds; a NULL is 0
// when nullable.
func valueTime(v driver.Value, nullable bool) (int64, error) {
	switch x := v.(type) {
	case nil:
		if nullable {
			return 0, nil
		}
	case int64:
		return x, nil
	}
	return 0, fmt.Errorf("%T %v is not a time", v, v)
}

// unixCol is the expression of timestamp column col as Unix seconds (whole seconds, as the
// store writes them), an integer on both databases; a NULL of a nullable column reads as 0.
// SQLite stores timestamps as text, which its unixepoch reads in C: a million rows read so
// cost less than as text that the driver copies into Go strings to be parsed. Text that is
// no time reads as NULL, an error for a column that is not nullable.
func (s *Store) unixCol(col string, nullable bool) string {
	e := "unixepoch(" + col + ")"
	if s.postgres {
		e = "FLOOR(EXTRACT(EPOCH FROM " + col + "))::bigint"
	}
	if nullable {
		e = "COALESCE(" + e + ", 0)"
	}
	return e
}

// gpuSpecs maps every GPU id to its spec.
func gpuSpecs(db *gorm.DB) (map[int64]string, error) {
	var gpus []GPU
	if err := db.Select("id, spec").Find(&gpus).Error; err != nil {
		return nil, fmt.Errorf("models: gpu specs: %w", err)
	}
	specs := make(map[int64]string, len(gpus))
	for _, g := range gpus {
		specs[g.ID] = g.Spec
	}
	return specs, nil
}

// LedgerTask is what a bill shows of a task. EndedAt and CheckpointAt are Unix seconds, 0
// while it runs and when it reported no checkpoint.
type LedgerTask struct {
	ID        int64
	ProjectID int64
	Name      string
	Owner     string
	GPUs      int
	State     string
	// Ending is how it ended (TaskEnding); "" while it runs.
	Ending      string
	OutputUnits int64
	EndedAt     int64
	// EstimatedS is the card-seconds its submitter estimated (est_gpu_hours), whole seconds.
	EstimatedS   int64
	CheckpointAt int64
	// ServiceID is the inference service the task is a replica of, and Model the model tag
	// it serves; 0 and "" for a batch task.
	ServiceID int64
	Model     string
	// PipelineID, Pipeline and Stage are the pipeline and stage that submitted the task (any
	// run of it); 0 and "" for a task of no pipeline.
	PipelineID int64
	Pipeline   string
	Stage      string
}

// LedgerTasks returns the tasks of the given ids (those the ledger's allocations name), by id.
// A month of every project's tasks is a few hundred thousand, so the ids are read in a few
// parts at once (one per core), each part in one pass over its id range when its ids are
// dense, keeping those asked for, else in chunks of ids.
func (s *Store) LedgerTasks(ctx context.Context, ids []int64) ([]LedgerTask, error) {
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	// Each part fills its own stretch of out, as long as its ids; they are joined in place.
	out := make([]LedgerTask, len(ids))
	var (
		mu    sync.Mutex
		found = map[int]int{} // tasks found, by the index of the part's first id
	)
	err := inParts(ctx, ids, len(ids)/ledgerTasksPart+1, func(ctx context.Context, part []int64) error {
		if len(part) == 0 {
			return nil
		}
		at, _ := slices.BinarySearch(ids, part[0])
		ts, err := s.ledgerTasks(ctx, part, out[at:at:at+len(part)])
		mu.Lock()
		defer mu.Unlock()
		found[at] = len(ts)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("models: ledger tasks: %w", err)
	}
	n := 0
	for _, at := range slices.Sorted(maps.Keys(found)) {
		n += copy(out[n:], out[at:at+found[at]])
	}
	clear(out[n:])
	return out[:n], nil
}

// ledgerTasksPart is the fewest ids LedgerTasks gives a part of its own.
const ledgerTasksPart = 20_000

// ledgerTasks appends the tasks of the sorted ids to out, by id.
func (s *Store) ledgerTasks(ctx context.Context, ids []int64, out []LedgerTask) ([]LedgerTask, error) {
	// Owners and states repeat: equal ones share a string.
	owners, states := map[string]string{}, map[string]string{}
	keep := func(v []driver.Value) error {
		id, err := valueInt(v[0])
		if err != nil {
			return err
		}
		if _, ok := slices.BinarySearch(ids, id); !ok {
			return nil
		}
		t, err := ledgerTask(id, v, owners, states)
		out = append(out, t)
		return err
	}
	cols := `SELECT tasks.id, tasks.project_id, tasks.name, tasks.owner, tasks.gpus, tasks.state, tasks.reason, ` +
		`tasks.output_units, tasks.est_gpu_hours, ` + s.unixCol("tasks.ended_at", true) + `, ` +
		s.unixCol("tasks.last_checkpoint_at", true) + `, tasks.model, tasks.service_id, ` +
		`pipeline_tasks.pipeline_id, pipelines.name, pipeline_stages.name FROM tasks ` +
		`LEFT JOIN pipeline_tasks ON pipeline_tasks.task_id = tasks.id ` +
		`LEFT JOIN pipelines ON pipelines.id = pipeline_tasks.pipeline_id ` +
		`LEFT JOIN pipeline_stages ON pipeline_stages.id = pipeline_tasks.stage_id WHERE `
	if lo, hi := ids[0], ids[len(ids)-1]; hi-lo < 2*int64(len(ids))+10_000 {
		return out, s.eachRow(ctx, cols+`tasks.id >= ? AND tasks.id <= ? ORDER BY tasks.id`, []any{lo, hi}, keep)
	}
	err := inChunks(ids, func(chunk []int64) error {
		args := make([]any, len(chunk))
		for i, id := range chunk {
			args[i] = id
		}
		in := strings.Repeat("?,", len(chunk))
		return s.eachRow(ctx, cols+`tasks.id IN (`+in[:len(in)-1]+`) ORDER BY tasks.id`, args, keep)
	})
	return out, err
}

// ledgerTask is task id's row as LedgerTasks reads it; owners and states share equal strings.
func ledgerTask(id int64, v []driver.Value, owners, states map[string]string) (LedgerTask, error) {
	t := LedgerTask{ID: id}
	var (
		errs   [15]error
		gpus   int64
		reason string
		est    float64
	)
	t.ProjectID, errs[0] = valueInt(v[1])
	t.Name, errs[1] = valueString(v[2], nil)
	t.Owner, errs[2] = valueString(v[3], owners)
	gpus, errs[3] = valueInt(v[4])
	t.State, errs[4] = valueString(v[5], states)
	reason, errs[5] = valueString(v[6], nil)
	t.OutputUnits, errs[6] = valueInt(v[7])
	est, errs[7] = valueFloat(v[8])
	t.EndedAt, errs[8] = valueTime(v[9], true)
	t.CheckpointAt, errs[9] = valueTime(v[10], true)
	t.Model, errs[10] = valueString(v[11], nil)
	if v[12] != nil {
		t.ServiceID, errs[11] = valueInt(v[12])
	}
	if v[13] != nil {
		t.PipelineID, errs[12] = valueInt(v[13])
		t.Pipeline, errs[13] = valueString(v[14], nil)
		t.Stage, errs[14] = valueString(v[15], nil)
	}
	if err := errors.Join(errs[:]...); err != nil {
		return t, fmt.Errorf("task %d: %w", id, err)
	}
	t.GPUs = int(gpus)
	t.Ending, t.EstimatedS = TaskEnding(t.State, reason), estimatedSeconds(est)
	return t, nil
}

// LedgerReadings calls each with every given GPU's 5-minute rollups whose buckets end after
// since and begin before to, sorted by bucket, GPU by GPU (a GPU without rollups is not
// given). Only GPUID, Resolution, Bucket, N, NIdle and NActive are filled: the counts are
// all the ledger reads, and a covering index holds them. Pass as since the earliest start of the allocations read, so that
// setup (before the first active reading) is found for allocations that began before the
// period.
//
// A month holds millions of rollups, so they are streamed, not returned: rs is reused once
// each returns, and the GPUs are read in a few parts at once (one per core), so each may be
// called concurrently for different GPUs. The first error stops the reading and is returned.
func (s *Store) LedgerReadings(ctx context.Context, gpuIDs []int64, since, to time.Time, each func(gpu int64, rs []GPURollup) error) error {
	return s.readLedger(ctx, gpuIDs, since, to, false, each)
}

// LedgerPeakReadings is LedgerReadings with UtilSum, UtilMax and MemMax filled too: the
// peaks the weekly report's rightsizing advice reads. The covering index does not hold them,
// so it reads the rows; a week's, not a month's.
func (s *Store) LedgerPeakReadings(ctx context.Context, gpuIDs []int64, since, to time.Time, each func(gpu int64, rs []GPURollup) error) error {
	return s.readLedger(ctx, gpuIDs, since, to, true, each)
}

// readLedger is LedgerReadings, with the peaks when peaks is set.
func (s *Store) readLedger(ctx context.Context, gpuIDs []int64, since, to time.Time, peaks bool, each func(gpu int64, rs []GPURollup) error) error {
	ids := slices.Sorted(slices.Values(gpuIDs))
	err := inParts(ctx, ids, len(ids)/8, func(ctx context.Context, part []int64) error {
		return s.ledgerReadings(ctx, part, since, to, peaks, new([]GPURollup), each)
	})
	if err != nil {
		return fmt.Errorf("models: ledger readings: %w", err)
	}
	return nil
}

// inParts splits the sorted ids into as many parts as there are cores, at most the SQLite
// read pool's 4 connections and at most pages, and runs read on each part at once. The first
// error stops the other parts and is returned.
func inParts(ctx context.Context, ids []int64, pages int, read func(ctx context.Context, part []int64) error) error {
	parts := min(runtime.GOMAXPROCS(0), 4, max(1, pages))
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var wg sync.WaitGroup
	for i := range parts {
		part := ids[i*len(ids)/parts : (i+1)*len(ids)/parts]
		wg.Go(func() {
			if err := read(ctx, part); err != nil {
				cancel(err) // the first cause is kept
			}
		})
	}
	wg.Wait()
	return context.Cause(ctx)
}

// ledgerReadings streams the rollups of the sorted ids to each, one GPU at a time, in buf
// (left for the next call to reuse).
func (s *Store) ledgerReadings(ctx context.Context, ids []int64, since, to time.Time, peaks bool, buf *[]GPURollup,
	each func(int64, []GPURollup) error) error {
	rs := (*buf)[:0]
	defer func() { *buf = rs[:0] }()
	flush := func() error {
		if len(rs) == 0 {
			return nil
		}
		err := each(rs[0].GPUID, rs)
		rs = rs[:0]
		return err
	}
	return inChunks(ids, func(chunk []int64) error {
		args := make([]any, 0, len(chunk)+3)
		for _, id := range chunk {
			args = append(args, id)
		}
		args = append(args, int64(Rollup5m), since.Unix()-Rollup5m, to.Unix())
		in := strings.Repeat("?,", len(chunk))
		from := "gpu_rollups"
		if !peaks && !s.postgres {
			from += " INDEXED BY idx_gpu_rollups_counts"
		}
		err := s.eachRow(ctx, `SELECT `+ledgerRollupCols(peaks)+` FROM `+from+`
			WHERE gpu_id IN (`+in[:len(in)-1]+`) AND resolution = ? AND bucket > ? AND bucket < ? ORDER BY gpu_id, bucket`,
			args, func(v []driver.Value) error {
				r, err := ledgerRollup(v, peaks)
				if err != nil {
					return err
				}
				if len(rs) > 0 && rs[0].GPUID != r.GPUID {
					if err := flush(); err != nil {
						return err
					}
				}
				rs = append(rs, r)
				return nil
			})
		if err != nil {
			return err
		}
		return flush()
	})
}

// ledgerRollupCols are the columns ledgerRollup reads, the peaks too when peaks is set.
func ledgerRollupCols(peaks bool) string {
	if peaks {
		return "gpu_id, bucket, n, n_idle, n_active, util_sum, util_max, mem_max"
	}
	return "gpu_id, bucket, n, n_idle, n_active"
}

// ledgerRollup is a 5-minute rollup row of ledgerRollupCols(peaks).
func ledgerRollup(v []driver.Value, peaks bool) (GPURollup, error) {
	var (
		r    = GPURollup{Resolution: Rollup5m}
		errs [8]error
		umax int64
	)
	r.GPUID, errs[0] = valueInt(v[0])
	r.Bucket, errs[1] = valueInt(v[1])
	r.N, errs[2] = valueInt(v[2])
	r.NIdle, errs[3] = valueInt(v[3])
	r.NActive, errs[4] = valueInt(v[4])
	if peaks {
		r.UtilSum, errs[5] = valueInt(v[5])
		umax, errs[6] = valueInt(v[6])
		r.MemMax, errs[7] = valueInt(v[7])
		r.UtilMax = int(umax)
	}
	if err := errors.Join(errs[:]...); err != nil {
		return r, fmt.Errorf("rollup of GPU %v: %w", v[0], err)
	}
	return r, nil
}

// inChunks calls f with ids sorted and cut into lists short enough for an IN (…) on SQLite
// and Postgres alike.
func inChunks(ids []int64, f func([]int64) error) error {
	ids = slices.Sorted(slices.Values(ids))
	const size = 5000
	for i := 0; i < len(ids); i += size {
		if err := f(ids[i:min(i+size, len(ids))]); err != nil {
			return err
		}
	}
	return nil
}

// LedgerNode is a node as pool idle sees it: provisioned from RegisteredAt until LastSeenAt.
type LedgerNode struct {
	ID           int64
	Hostname     string
	Pool         string
	Spec         string
	State        string
	RegisteredAt time.Time
	LastSeenAt   time.Time
	GPUIDs       []int64
}

// LedgerNodes returns every node with its pool, spec and GPU ids, those the scaling loop
// removed too: their machines were provisioned until they were last seen (pool idle), and
// the reports name them by their hostnames.
func (s *Store) LedgerNodes(ctx context.Context) ([]LedgerNode, error) {
	nodes, err := nodesWithGPUs(s.db.WithContext(ctx), true, nil)
	if err != nil {
		return nil, err
	}
	out := make([]LedgerNode, len(nodes))
	for i, n := range nodes {
		ln := LedgerNode{ID: n.ID, Hostname: n.Hostname, Pool: n.Pool, Spec: n.Spec, State: n.State,
			RegisteredAt: n.RegisteredAt.UTC(), LastSeenAt: n.LastSeenAt.UTC()}
		for _, g := range n.GPUs {
			ln.GPUIDs = append(ln.GPUIDs, g.ID)
		}
		out[i] = ln
	}
	return out, nil
}
