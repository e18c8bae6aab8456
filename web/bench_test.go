package web_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
	"kashi/scheduler"
	"kashi/web/webtest"
)

// BenchmarkSubmitToPlaced measures the path from POST /api/v1/tasks to a committed placement,
// on SQLite and (with KASHI_TEST_PG_DSN) Postgres: tasks (data ready, 1 GPU) go in through
// the router from submitCallers callers at once, as scripts and people submit, and the real
// scheduler tick runs after every 100 submits, on a fleet of 64 nodes × 8 GPUs registered
// through the agent API. A task counts once the store holds it placed. Between ticks, with
// the timer stopped, the placed tasks exit through the store so the fleet never fills up. In
// the same run it measures the database's raw rate of the least a submit must do, one row in
// a transaction of its own (rawInsertRate), and reports the ratio ("of-raw"), so that the
// machine's speed cancels out, and the share of the time the submits took beside the ticks
// ("submit-share").
func BenchmarkSubmitToPlaced(b *testing.B) {
	b.Run("sqlite", func(b *testing.B) {
		benchSubmitToPlaced(b, modelstest.SQLite(b, models.Options{}), "sqlite3",
			filepath.Join(b.TempDir(), "raw.db")+"?_journal_mode=WAL&_synchronous=NORMAL&_busy_timeout=5000")
	})
	if dsn := os.Getenv(modelstest.PGEnv); dsn != "" {
		b.Run("postgres", func(b *testing.B) { benchSubmitToPlaced(b, modelstest.Postgres(b, models.Options{}), "pgx", dsn) })
	}
}

// submitCallers is how many callers submit at once in BenchmarkSubmitToPlaced.
const submitCallers = 32

func benchSubmitToPlaced(b *testing.B, store *models.Store, driver, rawDSN string) {
	const nodes, perNode, batch = 64, 8, 100
	s := webtest.NewServerOn(b, store, webtest.TestCfg())
	for i := range nodes {
		s.Register(webtest.Node(fmt.Sprintf("gpu-%02d", i)).InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, perNode))
	}
	s.Projects("vision")
	ctx := context.Background()
	loop := scheduler.NewLoop(s.Store, scheduler.LoopConfig{Policy: scheduler.DefaultPolicy(nil), Now: s.Clock,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	body := webtest.TaskBody(nil)

	placed := 0
	var subT, tickT time.Duration
	b.ResetTimer()
	for done := 0; done < b.N; {
		n := min(batch, b.N-done)
		t0 := time.Now()
		submitAtOnce(b, s, body, n)
		t1 := time.Now()
		done += n
		if _, err := loop.RunOnce(ctx, webtest.T0); err != nil {
			b.Fatalf("RunOnce: %v", err)
		}
		subT += t1.Sub(t0)
		tickT += time.Since(t1)
		b.StopTimer()
		placed += finishPlaced(b, s)
		b.StartTimer()
	}
	b.StopTimer()
	if placed != b.N {
		b.Fatalf("placed %d of %d tasks", placed, b.N)
	}
	rows := 2000
	if testing.Short() { // CI's smoke run
		rows = 50
	}
	rate, raw := float64(placed)/b.Elapsed().Seconds(), rawInsertRate(b, driver, rawDSN, rows)
	b.ReportMetric(rate, "tasks/s")
	b.ReportMetric(raw, "raw-rows/s")
	b.ReportMetric(rate/raw, "of-raw")
	b.ReportMetric(subT.Seconds()/(subT+tickT).Seconds(), "submit-share")
}

// submitAtOnce posts body n times from up to submitCallers goroutines and waits for every
// answer; each must be 201.
func submitAtOnce(b *testing.B, s *webtest.Server, body string, n int) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(submitCallers, n) {
		wg.Go(func() {
			for next.Add(1) <= int64(n) {
				if w := s.Post("/api/v1/tasks", body); w.Code != http.StatusCreated {
					b.Errorf("POST /api/v1/tasks = %d %s, want 201", w.Code, w.Body)
					return
				}
			}
		})
	}
	wg.Wait()
	if b.Failed() {
		b.FailNow()
	}
}

// rawInsertRate is the rate at which the database inserts n rows of a task's size, each in
// a transaction of its own (durable as the store's: SQLite in WAL with synchronous NORMAL,
// Postgres logged), through database/sql with no ORM, no index but the key and no checks.
func rawInsertRate(b *testing.B, driver, dsn string, n int) float64 {
	db, err := sql.Open(driver, dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	table := fmt.Sprintf("raw_tasks_%d", time.Now().UnixNano())
	if _, err := db.Exec(`CREATE TABLE ` + table + ` (id BIGINT PRIMARY KEY, project TEXT, name TEXT, command TEXT, submitted_at BIGINT)`); err != nil {
		b.Fatal(err)
	}
	defer db.Exec(`DROP TABLE ` + table)
	insert := "INSERT INTO " + table + " VALUES ($1, $2, $3, $4, $5)"
	start := time.Now()
	for i := range n {
		tx, err := db.Begin()
		if err != nil {
			b.Fatal(err)
		}
		if _, err := tx.Exec(insert, i, "vision", "train", `["python","train.py"]`, time.Now().Unix()); err != nil {
			b.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	return float64(n) / time.Since(start).Seconds()
}

// finishPlaced ends every task placed so far (its process exits 0) and returns how many there were.
func finishPlaced(b *testing.B, s *webtest.Server) int {
	ctx := context.Background()
	active, err := s.Store.ActiveTasks(ctx)
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for _, t := range active {
		if t.State != models.TaskStarting {
			continue
		}
		n++
		err := s.Store.ReportTaskStatus(ctx, *t.NodeID, t.ID, models.TaskReport{State: models.ReportExited}, webtest.T0)
		if err != nil {
			b.Fatalf("ReportTaskStatus(%d): %v", t.ID, err)
		}
	}
	return n
}
