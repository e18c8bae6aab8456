package models

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"gorm.io/gorm"
)

// LedgerQuery selects the ledger rows of the period [From, To) (UTC), of one project or, when
// ProjectID is 0, of all.
type LedgerQuery struct {
	From, To  time.Time
	ProjectID int64
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
}

// LedgerAllocations returns the allocations that overlap the period, open ones included, by
// id. It reads rows straight from the driver and timestamps as text (see parseDBTime): a
// month holds a million of them.
func (s *Store) LedgerAllocations(ctx context.Context, q LedgerQuery) ([]LedgerAllocation, error) {
	db := s.db.WithContext(ctx)
	specs, err := gpuSpecs(db)
	if err != nil {
		return nil, err
	}
	cond, args := q.where("")
	rows, err := db.Raw(`SELECT id, task_id, gpu_id, node_id, project_id, CAST(started_at AS TEXT), CAST(ended_at AS TEXT), overflow
		FROM allocations WHERE `+cond+` ORDER BY id`, args...).Rows()
	if err != nil {
		return nil, fmt.Errorf("models: ledger allocations: %w", err)
	}
	defer rows.Close()
	var (
		out        []LedgerAllocation
		start, end sql.RawBytes
	)
	for rows.Next() {
		var a LedgerAllocation
		if err := rows.Scan(&a.ID, &a.TaskID, &a.GPUID, &a.NodeID, &a.ProjectID, &start, &end, &a.Overflow); err != nil {
			return nil, fmt.Errorf("models: ledger allocations: %w", err)
		}
		if a.Start, err = parseDBTime(start); err != nil {
			return nil, fmt.Errorf("models: ledger allocation %d: %w", a.ID, err)
		}
		if end != nil {
			if a.End, err = parseDBTime(end); err != nil {
				return nil, fmt.Errorf("models: ledger allocation %d: %w", a.ID, err)
			}
		}
		a.Spec = specs[a.GPUID]
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("models: ledger allocations: %w", err)
	}
	return out, nil
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

// LedgerTask is what a bill shows of a task. EndedAt is Unix seconds, 0 while it runs.
type LedgerTask struct {
	ID          int64
	ProjectID   int64
	Name        string
	Owner       string
	GPUs        int
	State       string
	OutputUnits int64
	EndedAt     int64
}

// LedgerTasks returns the tasks of the given ids (those the ledger's allocations name), by id.
func (s *Store) LedgerTasks(ctx context.Context, ids []int64) ([]LedgerTask, error) {
	out := make([]LedgerTask, 0, len(ids))
	var end sql.RawBytes
	err := inChunks(ids, func(chunk []int64) error {
		rows, err := s.db.WithContext(ctx).Raw(`SELECT id, project_id, name, owner, gpus, state, output_units, CAST(ended_at AS TEXT)
			FROM tasks WHERE id IN ?`, chunk).Rows()
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var t LedgerTask
			if err := rows.Scan(&t.ID, &t.ProjectID, &t.Name, &t.Owner, &t.GPUs, &t.State, &t.OutputUnits, &end); err != nil {
				return err
			}
			if end != nil {
				if t.EndedAt, err = parseDBTime(end); err != nil {
					return fmt.Errorf("task %d: %w", t.ID, err)
				}
			}
			out = append(out, t)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("models: ledger tasks: %w", err)
	}
	slices.SortFunc(out, func(a, b LedgerTask) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

// LedgerRollups returns the 5-minute rollups of the given GPUs with buckets that end after
// since and begin before to, ordered by GPU and bucket. Only GPUID, Resolution, Bucket, N,
// NIdle and NActive are filled: the counts are all the ledger reads. Pass as since the
// earliest start of the allocations read, so that setup (before the first active reading) is
// found for allocations that began before the period.
func (s *Store) LedgerRollups(ctx context.Context, gpuIDs []int64, since, to time.Time) ([]GPURollup, error) {
	var out []GPURollup
	err := inChunks(gpuIDs, func(chunk []int64) error {
		rows, err := s.db.WithContext(ctx).Raw(`SELECT gpu_id, bucket, n, n_idle, n_active FROM gpu_rollups
			WHERE gpu_id IN ? AND resolution = ? AND bucket > ? AND bucket < ? ORDER BY gpu_id, bucket`,
			chunk, Rollup5m, since.Unix()-Rollup5m, to.Unix()).Rows()
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			r := GPURollup{Resolution: Rollup5m}
			if err := rows.Scan(&r.GPUID, &r.Bucket, &r.N, &r.NIdle, &r.NActive); err != nil {
				return err
			}
			out = append(out, r)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("models: ledger rollups: %w", err)
	}
	return out, nil
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

// LedgerNodes returns every node with its pool, spec and GPU ids.
func (s *Store) LedgerNodes(ctx context.Context) ([]LedgerNode, error) {
	nodes, err := s.Nodes(ctx)
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

// parseDBTime reads a timestamp as CAST(… AS TEXT) gives it on SQLite
// ("2026-03-01 08:00:00+00:00", as the driver stored it) and Postgres
// ("2026-03-01 16:00:00+08", in the session's zone): date, time, optional fraction (dropped:
// stored times are whole seconds), then Z or an offset ±HH[:MM[:SS]]. It returns Unix
// seconds; it is what makes reading a million allocations cheap.
func parseDBTime(b []byte) (int64, error) {
	num := func(i, n int) (int, bool) {
		if i+n > len(b) {
			return 0, false
		}
		v := 0
		for _, c := range b[i : i+n] {
			if c < '0' || c > '9' {
				return 0, false
			}
			v = v*10 + int(c-'0')
		}
		return v, true
	}
	y, ok1 := num(0, 4)
	mo, ok2 := num(5, 2)
	d, ok3 := num(8, 2)
	h, ok4 := num(11, 2)
	mi, ok5 := num(14, 2)
	sec, ok6 := num(17, 2)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || b[4] != '-' || b[7] != '-' || (b[10] != ' ' && b[10] != 'T') ||
		b[13] != ':' || b[16] != ':' {
		return 0, badTime(b)
	}
	i := 19
	if i < len(b) && b[i] == '.' {
		for i++; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		}
	}
	offset := 0
	switch {
	case i == len(b) || b[i] == 'Z':
	case b[i] == '+' || b[i] == '-':
		parts := [3]int{}
		j := i + 1
		for k := 0; k < 3 && j < len(b); k++ {
			v, ok := num(j, 2)
			if !ok {
				return 0, badTime(b)
			}
			parts[k] = v
			j += 2
			if j < len(b) && b[j] == ':' {
				j++
			}
		}
		offset = parts[0]*3600 + parts[1]*60 + parts[2]
		if b[i] == '-' {
			offset = -offset
		}
	default:
		return 0, badTime(b)
	}
	return time.Date(y, time.Month(mo), d, h, mi, sec, 0, time.UTC).Unix() - int64(offset), nil
}

func badTime(b []byte) error { return fmt.Errorf("timestamp %q: unexpected form", b) }
