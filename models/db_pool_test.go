package models

import (
	"context"
	"database/sql"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"gorm.io/gorm"
)

func TestReadOnly(t *testing.T) {
	for q, want := range map[string]bool{
		"SELECT * FROM gpus":                    true,
		"  select count(*) from users":          true,
		"(SELECT 1) UNION (SELECT 2)":           true,
		"WITH x AS (SELECT 1) SELECT * FROM x":  true,
		"WITH x AS (SELECT 1) DELETE FROM t":    false,
		"INSERT INTO t VALUES (1) RETURNING id": false,
		"UPDATE gpus SET util_pct = 1":          false,
		"PRAGMA foreign_keys":                   false,
		"SELEC":                                 false,
	} {
		if got := readOnly(q); got != want {
			t.Errorf("readOnly(%q) = %v, want %v", q, got, want)
		}
	}
}

// On SQLite a read outside a transaction is answered while a write transaction holds the
// writer, and the read pool refuses writes.
func TestSQLiteReadsPassTheWriter(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "kashi.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.CreateUser(ctx, "ann", "a long password", RoleAdmin, time.Now()); err != nil {
		t.Fatal(err)
	}
	holding, release := make(chan struct{}), make(chan struct{})
	writeDone := make(chan error)
	go func() {
		writeDone <- s.db.Transaction(func(tx *gorm.DB) error {
			if err := tx.Model(&User{}).Where("name = ?", "ann").Update("role", RoleViewer).Error; err != nil {
				return err
			}
			close(holding)
			<-release
			return nil
		})
	}()
	<-holding
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	u, err := s.UserByName(rctx, "ann")
	cancel()
	close(release)
	if err != nil || u.Role != RoleAdmin {
		t.Errorf("UserByName during a write = %q, %v, want the committed role %q", u.Role, err, RoleAdmin)
	}
	if err := <-writeDone; err != nil {
		t.Fatal(err)
	}
	for name, ctx := range map[string]context.Context{"read": ctx, "mapped": MappedReads(ctx)} {
		if _, err := s.readPool(ctx).ExecContext(ctx, "DELETE FROM users"); err == nil {
			t.Errorf("the %s pool ran a DELETE, want it refused", name)
		}
	}
}

// On SQLite the read connections do not map the file, and those of a MappedReads context
// (a month's bills) do, however many each pool opens; readers keep a small page cache, the
// writer a large one. A MappedReads context's reads go to the mapped pool through GORM and
// below it; the others never do.
func TestSQLiteReadersMapTheFileForMappedReadsOnly(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "kashi.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, c := range []struct {
		ctx  context.Context
		mmap int64
	}{{ctx, 0}, {MappedReads(ctx), readerMmap}} {
		var conns []*sql.Conn
		for range 3 {
			conn, err := s.readPool(c.ctx).Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			conns = append(conns, conn)
		}
		for i, conn := range conns {
			var size int64
			if err := conn.QueryRowContext(ctx, "PRAGMA mmap_size").Scan(&size); err != nil || size != c.mmap {
				t.Errorf("connection %d: mmap_size = %d, %v; want %d", i, size, err, c.mmap)
			}
			if got := cacheKiB(t, conn); got != readerCacheKiB {
				t.Errorf("reader %d: cache of %d KiB, want %d", i, got, readerCacheKiB)
			}
			conn.Close()
		}
	}
	p := s.db.ConnPool.(*pools)
	w, err := p.write.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := cacheKiB(t, w); got != writerCacheKiB {
		t.Errorf("writer: cache of %d KiB, want %d", got, writerCacheKiB)
	}
	w.Close()

	for _, c := range []struct {
		name         string
		ctx          context.Context
		read, mapped int
	}{{"a read", ctx, 1, 0}, {"a MappedReads read", MappedReads(ctx), 0, 1}} {
		rows, err := s.db.WithContext(c.ctx).Raw("SELECT id FROM users").Rows() // held open: its connection is in use
		if err != nil {
			t.Fatal(err)
		}
		if r, m := p.read.Stats().InUse, p.mapped.Stats().InUse; r != c.read || m != c.mapped {
			t.Errorf("%s uses %d read and %d mapped connections, want %d and %d", c.name, r, m, c.read, c.mapped)
		}
		rows.Close()
	}
	if err := s.db.WithContext(MappedReads(ctx)).Exec("DELETE FROM users").Error; err != nil {
		t.Errorf("a write with a MappedReads context: %v, want it on the writer", err)
	}
}

// cacheKiB is c's page cache in KiB (SQLite gives a size in KiB as a negative number).
func cacheKiB(t *testing.T, c *sql.Conn) int {
	t.Helper()
	var n int
	if err := c.QueryRowContext(context.Background(), "PRAGMA cache_size").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return -n
}

// TestSQLiteWriterInTurns: transactions waiting for the one SQLite writer get it in the order
// they asked, not in database/sql's random order, so a write waits only for those queued
// before it.
func TestSQLiteWriterInTurns(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "kashi.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p := s.db.ConnPool.(*pools)
	holder, err := p.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	const waiters = 8
	order := make(chan int, waiters)
	errs := make(chan error, waiters)
	for i := range waiters {
		go func() {
			tx, err := p.BeginTx(ctx, nil)
			if err != nil {
				errs <- err
				return
			}
			order <- i
			errs <- tx.(*notifyTx).Commit()
		}()
		waitForBlocked(t, "(*pools).BeginTx", i+1) // queued in this order
	}
	if err := holder.(*notifyTx).Commit(); err != nil {
		t.Fatal(err)
	}
	for want := range waiters {
		if got := <-order; got != want {
			t.Fatalf("transaction %d got the writer in turn %d", got, want)
		}
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// waitForBlocked waits until n goroutines are blocked in a function whose name contains fn.
func waitForBlocked(t *testing.T, fn string, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		blocked := 0
		for _, g := range strings.Split(string(buf), "\n\n") {
			head, _, _ := strings.Cut(g, "\n")
			if strings.Contains(g, fn) && (strings.Contains(head, "chan send") || strings.Contains(head, "select")) {
				blocked++
			}
		}
		if blocked >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines blocked in %s, want %d", blocked, fn, n)
		}
		runtime.Gosched()
	}
}
