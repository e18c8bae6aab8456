package billing

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kashi/models"
)

// rawStore is a migrated store on a SQLite file plus a second database/sql handle on the same
// file for inserting fixture rows in large batches, past the store's validation.
type rawStore struct {
	*models.Store
	db *sql.DB
}

func openRawStore(tb testing.TB, dir string) *rawStore {
	tb.Helper()
	path := filepath.Join(dir, "kashi.db")
	st, err := models.Open(context.Background(), path, models.Options{})
	if err != nil {
		tb.Fatalf("open store: %v", err)
	}
	db, err := sql.Open("sqlite3", "file:"+path+"?_journal_mode=WAL&_busy_timeout=5000")
	if err != nil {
		tb.Fatalf("open raw: %v", err)
	}
	return &rawStore{Store: st, db: db}
}

func (r *rawStore) Close() {
	r.db.Close()
	r.Store.Close()
}

// insert adds n rows to table in multi-row INSERTs within one transaction; row appends the
// i-th row's values to args.
func (r *rawStore) insert(tb testing.TB, table string, cols []string, n int, row func(i int, args []any) []any) {
	tb.Helper()
	if n == 0 {
		return
	}
	per := 30000 / len(cols)
	tx, err := r.db.Begin()
	if err != nil {
		tb.Fatal(err)
	}
	one := "(" + strings.TrimSuffix(strings.Repeat("?,", len(cols)), ",") + ")"
	args := make([]any, 0, per*len(cols))
	for i := 0; i < n; i += per {
		k := min(per, n-i)
		args = args[:0]
		for j := i; j < i+k; j++ {
			args = row(j, args)
		}
		stmt := "INSERT INTO " + table + ` ("` + strings.Join(cols, `","`) + `") VALUES ` +
			strings.TrimSuffix(strings.Repeat(one+",", k), ",")
		if _, err := tx.Exec(stmt, args...); err != nil {
			tb.Fatalf("insert into %s: %v", table, err)
		}
	}
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
}

// ledgerRows are fixture rows for a rawStore.
type ledgerRows struct {
	nodes       int // of 8 GPUs each, all in one pool of spec
	spec        string
	provisioned [2]time.Time
	projects    []string
	tasks       []models.LedgerTask
	taskStart   []int64 // by task index, Unix seconds
	allocations []models.LedgerAllocation
	rollups     []models.GPURollup
}

// load inserts the rows: GPU ids are 1…8×nodes, node ids 1…nodes, project ids 1…n.
func (r *rawStore) load(tb testing.TB, lr ledgerRows) {
	tb.Helper()
	t0 := lr.provisioned[0]
	r.insert(tb, "pools", []string{"id", "name", "spec", "provider", "gpus_per_node", "created_at"}, 1,
		func(_ int, a []any) []any { return append(a, 1, "pool", lr.spec, "static", 8, t0) })
	r.insert(tb, "nodes", []string{"id", "pool_id", "hostname", "machine_id", "token_hash", "state", "registered_at", "last_seen_at"},
		lr.nodes, func(i int, a []any) []any {
			return append(a, i+1, 1, fmt.Sprintf("node-%d", i+1), fmt.Sprintf("m-%d", i+1), fmt.Sprintf("tok-%d", i+1), models.NodeReady, t0, lr.provisioned[1])
		})
	r.insert(tb, "gpus", []string{"id", "node_id", "uuid", "gpu_index", "name", "spec", "memory_total_mib", "memory_used_mib",
		"util_pct", "temp_c", "power_w"}, 8*lr.nodes, func(i int, a []any) []any {
		return append(a, i+1, i/8+1, fmt.Sprintf("gpu-%d", i+1), i%8, "NVIDIA A100-SXM4-80GB", lr.spec, 81920, 0, 0, 30, 60)
	})
	r.insert(tb, "projects", []string{"id", "name", "created_at"}, len(lr.projects), func(i int, a []any) []any {
		return append(a, i+1, lr.projects[i], t0)
	})
	r.insert(tb, "tasks", []string{"id", "project_id", "name", "owner", "gpus", "spec", "queue", "priority", "est_gpu_hours",
		"max_runtime_s", "command", "env", "workdir", "data_ready", "data_check", "deferrable", "state", "reason",
		"submitted_at", "started_at", "ended_at", "output_units", "stop_state", "stop_reason"}, len(lr.tasks), func(i int, a []any) []any {
		t := lr.tasks[i]
		return append(a, t.ID, t.ProjectID, t.Name, t.Owner, t.GPUs, lr.spec, models.QueueLong, "normal", 1.0, 86400,
			`["run"]`, `{}`, "", true, "", false, t.State, "", t0, dbTime(lr.taskStart[i]), dbTime(t.EndedAt), t.OutputUnits, "", "")
	})
	r.insert(tb, "allocations", []string{"id", "task_id", "gpu_id", "node_id", "project_id", "started_at", "ended_at", "overflow"},
		len(lr.allocations), func(i int, a []any) []any {
			l := lr.allocations[i]
			return append(a, l.ID, l.TaskID, l.GPUID, l.NodeID, l.ProjectID, dbTime(l.Start), dbTime(l.End), l.Overflow)
		})
	r.insert(tb, "gpu_rollups", []string{"gpu_id", "resolution", "bucket", "n", "util_sum", "util_max", "mem_sum", "mem_max",
		"n_idle", "n_active"}, len(lr.rollups), func(i int, a []any) []any {
		g := lr.rollups[i]
		return append(a, g.GPUID, models.Rollup5m, g.Bucket, g.N, 0, 0, 0, 0, g.NIdle, g.NActive)
	})
}

// dbTime is Unix seconds as the store writes a timestamp, or NULL for 0.
func dbTime(unix int64) any {
	if unix == 0 {
		return nil
	}
	return time.Unix(unix, 0).UTC()
}
