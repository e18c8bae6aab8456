package models

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/mattn/go-sqlite3"
	"gorm.io/driver/postgres"
	"gorm.io/driver/sqlite"
	"gorm.io/gorm"
)

// DefaultMaxConns bounds a Postgres pool when Options.MaxConns is zero. Debian's server allows
// 100 connections; a few replicas of 16 stay well under it, and 16 busy connections already
// saturate the few cores a Kashi server has.
const DefaultMaxConns = 16

// Pool limits for Postgres: how long a connection may live or stay idle before it is closed
// (a restarted or failed-over server is picked up within that time). Every open connection
// may stay idle: a pool that keeps fewer closes and reopens connections at each burst, and a
// Postgres connection is a forked process (measured: the server's CPU went to the kernel).
const (
	pgMaxLifetime = 30 * time.Minute
	pgMaxIdleTime = 5 * time.Minute
)

// postgresDialector opens a bounded Postgres pool.
func postgresDialector(dsn string, maxConns int, committed func(ctx context.Context, f forgets)) (gorm.Dialector, func() error, error) {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return nil, nil, err
	}
	db.SetMaxOpenConns(maxConns)
	db.SetMaxIdleConns(maxConns)
	db.SetConnMaxLifetime(pgMaxLifetime)
	db.SetConnMaxIdleTime(pgMaxIdleTime)
	p := &pools{read: db, write: db, committed: committed}
	return postgres.New(postgres.Config{Conn: p}), p.close, nil
}

// sqliteDialector opens SQLite as two pools on one file: one writer connection that takes
// the write lock at BEGIN (every transaction and every write goes through it, so writers
// queue in Go instead of spinning on SQLite's busy timeout), and a pool of read-only
// connections whose deferred reads never take the write lock (WAL lets them run beside the
// writer).
func sqliteDialector(path string, committed func(ctx context.Context, f forgets)) (gorm.Dialector, func() error, error) {
	if err := privateFiles(path); err != nil {
		return nil, nil, err
	}
	write, err := sql.Open(sqliteWriter, sqliteDSN(path, writerCacheKiB, "_txlock=immediate"))
	if err != nil {
		return nil, nil, err
	}
	write.SetMaxOpenConns(1)
	write.SetMaxIdleConns(1)
	// The writer creates the file and switches it to WAL before any reader opens it.
	if err := write.Ping(); err != nil {
		write.Close()
		return nil, nil, fmt.Errorf("sqlite writer: %w", err)
	}
	readDSN := sqliteDSN(path, readerCacheKiB, "_txlock=deferred&_query_only=true&_mutex=no")
	read, err := sql.Open(sqliteReader, readDSN)
	if err != nil {
		write.Close()
		return nil, nil, err
	}
	// Enough readers that a point read (a token, a task) does not wait behind the scans of
	// the board's and the scheduler's snapshots: database/sql hands a freed connection to a
	// random waiter, and with 4 readers such reads queued for up to seconds at 1,024 agents.
	n := max(16, 2*runtime.GOMAXPROCS(0))
	read.SetMaxOpenConns(n)
	read.SetMaxIdleConns(n)
	mapped, err := sql.Open(sqliteMapped, readDSN)
	if err != nil {
		write.Close()
		read.Close()
		return nil, nil, err
	}
	// As many as the readers (a month's reads run a part per core, and a stream's callback
	// may read again); a mapped connection idle for a while is closed, and what its map read
	// leaves the process's resident memory with it.
	mapped.SetMaxOpenConns(n)
	mapped.SetMaxIdleConns(n)
	mapped.SetConnMaxIdleTime(mappedIdle)
	p := &pools{read: read, mapped: mapped, write: write, turn: make(chan struct{}, 1), committed: committed}
	if p.ckpt, err = startCheckpoints(path, p.take); err != nil {
		return nil, nil, errors.Join(err, p.close())
	}
	return sqlite.New(sqlite.Config{Conn: p}), p.close, nil
}

// privateFiles keeps the SQLite database at path (a file path or a file: URI) to its owner,
// as it holds password and token hashes: a new database is created 0600 before SQLite opens
// it (SQLite gives the -wal and -shm files it makes the database's permissions), and an
// existing one, with its -wal and -shm, loses any group and other permissions where this
// process may change them. An in-memory database has no file.
func privateFiles(path string) error {
	name, query, _ := strings.Cut(strings.TrimPrefix(path, "file:"), "?")
	if name == "" || name == ":memory:" || strings.Contains(query, "mode=memory") {
		return nil
	}
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		return f.Close()
	}
	if !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("sqlite file: %w", err)
	}
	for _, p := range []string{name, name + "-wal", name + "-shm"} {
		if fi, err := os.Stat(p); err == nil && fi.Mode().Perm()&0o077 != 0 {
			// Best effort: a file of another owner keeps its mode, and the open goes on.
			_ = os.Chmod(p, fi.Mode().Perm()&^0o077)
		}
	}
	return nil
}

// sqliteReader is the driver of the read pool: SQLite's, with connections opened without a
// mutex of their own (_mutex=no): database/sql hands a connection to one goroutine at a time,
// and SQLite otherwise takes that mutex for every column of every row. They read the file
// page by page into their small caches (readerCacheKiB) through the kernel's page cache,
// which the process's resident memory does not count.
const sqliteReader = "sqlite3-reader"

// sqliteMapped is the driver of the mapped read pool, which statements run with a
// MappedReads context use (a month's bills): a reader that maps the file rather than copying
// it page by page (a month's bills read a few hundred MiB of index: 1.9 s/op with the map,
// 2.5–2.7 without). What a map has read counts in the process's resident memory until it is
// unmapped: read through the map, the scheduler's weekly read of tasks and the rollups
// raised the server's peak RSS by 80–250 MB at 32,768 GPUs, so the other reads do not map.
// The price of a map: a disk failing under a mapped read ends the process (SIGBUS) instead
// of failing the query.
const sqliteMapped = "sqlite3-mapped"

// readerMmap is how much of the file a mapped read connection maps.
const readerMmap = 1 << 30

// mappedIdle is how long a mapped read connection stays open unused.
const mappedIdle = time.Minute

// MappedReads marks ctx's reads, on SQLite, as large and for a person waiting (a month's
// bills): they go through connections that map the file. On Postgres it changes nothing.
func MappedReads(ctx context.Context) context.Context {
	return context.WithValue(ctx, mappedKey{}, true)
}

// mappedKey marks a MappedReads context.
type mappedKey struct{}

// sqliteWriter is the driver of the writer: SQLite's, with the WAL's automatic checkpoint
// off. A checkpoint writes the WAL's pages back into the file and flushes it to disk; run by
// the commit that crossed 1,000 pages, it held the writer, and every write queued behind it:
// in the agents' ingest benchmark a group's commit took 4–5 ms on average with it and
// 1.6–2 ms without. The checkpoints run beside the writer instead (wal_checkpoint.go), and
// the writer keeps at most walKeep bytes of the WAL's file when it starts the WAL over.
const sqliteWriter = "sqlite3-writer"

func init() {
	sql.Register(sqliteReader, &sqlite3.SQLiteDriver{})
	sql.Register(sqliteMapped, &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {
		_, err := c.Exec(fmt.Sprintf("PRAGMA mmap_size = %d", readerMmap), nil)
		return err
	}})
	sql.Register(sqliteWriter, &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {
		_, err := c.Exec(fmt.Sprintf("PRAGMA wal_autocheckpoint = 0; PRAGMA journal_size_limit = %d", walKeep), nil)
		return err
	}})
	sql.Register(sqliteCheckpoints, &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {
		_, err := c.Exec(fmt.Sprintf("PRAGMA busy_timeout = %d", restartWait.Milliseconds()), nil)
		return err
	}})
}

// valuesChunk is how many of n rows a SQLite VALUES list takes at once: the largest power of
// two up to 1,024, so that the statements' texts are few and the connection's statement
// cache (_stmt_cache_size) prepares each once, not once a commit.
func valuesChunk(n int) int {
	c := 1024
	for c > n && c > 1 {
		c /= 2
	}
	return c
}

// Each SQLite connection's page cache, in KiB. The writer keeps the pages it changes again and
// again (the GPUs', the nodes', the indexes' upper levels). A reader's cache is emptied at
// the start of each read once another connection committed, which under a stream of writes
// is every read, so a large one buys nothing: with the writer's 64 MiB each, the sixteen
// readers held about 20 MiB more of C memory after a minute at 4,096 agents, and more as they
// went on; 4 MiB leaves a month's bills as fast (docs/decisions.md, "Rollups that seek their
// window, and small readers' caches"). A mapped reader caches only the pages it reads from
// the WAL.
const (
	writerCacheKiB = 64 << 10
	readerCacheKiB = 4 << 10
)

// sqliteDSN adds WAL, busy timeout, foreign keys, a page cache of cacheKiB and extra to a
// SQLite path.
func sqliteDSN(path string, cacheKiB int, extra string) string {
	params := fmt.Sprintf("_journal_mode=WAL&_synchronous=NORMAL&_busy_timeout=5000&_foreign_keys=on&_cache_size=-%d&_stmt_cache_size=64&", cacheKiB) + extra
	if strings.Contains(path, "?") {
		return path + "&" + params
	}
	return "file:" + path + "?" + params
}

// pools is the gorm.ConnPool under the Store: statements that only read, outside a
// transaction, go to the read pool (on SQLite, the mapped one for a MappedReads context);
// everything else to the writer (on Postgres all are the one bounded pool). A committed
// transaction calls committed with the context it began with and whether it wrote a table of
// who may do what.
type pools struct {
	read, write *sql.DB
	// mapped, on SQLite, reads the statements of a MappedReads context (nil on Postgres).
	mapped *sql.DB
	// turn, on SQLite, hands the one writer connection out in the order it was asked for
	// (nil on Postgres). database/sql gives a freed connection to a random waiter, so
	// under load a write could wait many turns while later ones went first: p99 ingest and
	// submit were 0.3–1.3 s at 1,024 agents where p50 was 2–9 ms (docs/decisions.md, "The
	// writer in turns, and agents' writes committed together").
	turn      chan struct{}
	committed func(ctx context.Context, f forgets)
	// ckpt checkpoints a SQLite database's WAL beside the writer (nil on Postgres).
	ckpt *checkpoints
}

// take waits for the writer's turn, in the order asked; done gives it to the next.
func (p *pools) take(ctx context.Context) (done func(), err error) {
	if p.turn == nil {
		return func() {}, nil
	}
	select {
	case p.turn <- struct{}{}:
		return func() { <-p.turn }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// pick chooses the pool for one statement run with ctx.
func (p *pools) pick(ctx context.Context, query string) *sql.DB {
	if readOnly(query) {
		return p.reader(ctx)
	}
	return p.write
}

// reader is the pool that reads with ctx: the mapped one for a MappedReads context on SQLite.
func (p *pools) reader(ctx context.Context) *sql.DB {
	if p.mapped != nil && ctx.Value(mappedKey{}) != nil {
		return p.mapped
	}
	return p.read
}

// readOnly reports whether a statement is a plain query (SELECT, or WITH … SELECT) that
// cannot write.
func readOnly(query string) bool {
	q := strings.TrimLeft(query, " \t\r\n(")
	if len(q) < 6 {
		return false
	}
	switch strings.ToUpper(q[:4]) {
	case "SELE":
		return strings.EqualFold(q[:6], "SELECT")
	case "WITH":
		u := strings.ToUpper(q)
		return !strings.Contains(u, "INSERT") && !strings.Contains(u, "UPDATE") && !strings.Contains(u, "DELETE")
	}
	return false
}

// PrepareContext prepares query on the pool that will run it.
func (p *pools) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	return p.pick(ctx, query).PrepareContext(ctx, query)
}

// ExecContext runs a statement on the writer.
func (p *pools) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	done, err := p.take(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	return p.write.ExecContext(ctx, query, args...)
}

// QueryContext runs a query on the read pool, or on the writer, in its turn, when it writes
// (RETURNING). The turn ends when the statement has run; its rows hold the connection
// until closed, so the next turn may wait for them in database/sql.
func (p *pools) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	db := p.pick(ctx, query)
	if db == p.write {
		done, err := p.take(ctx)
		if err != nil {
			return nil, err
		}
		defer done()
	}
	return db.QueryContext(ctx, query, args...)
}

// QueryRowContext is QueryContext for one row.
func (p *pools) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	db := p.pick(ctx, query)
	if db == p.write {
		if done, err := p.take(ctx); err == nil {
			defer done()
		} // else the query itself fails on the ended context
	}
	return db.QueryRowContext(ctx, query, args...)
}

// BeginTx begins a transaction on the writer.
func (p *pools) BeginTx(ctx context.Context, opts *sql.TxOptions) (gorm.ConnPool, error) {
	done, err := p.take(ctx)
	if err != nil {
		return nil, err
	}
	tx, err := p.write.BeginTx(ctx, opts)
	if err != nil {
		done()
		return nil, err
	}
	return &notifyTx{Tx: tx, ctx: ctx, committed: p.committed, done: done}, nil
}

// GetDBConn returns the writer, for GORM's DB() and pings.
func (p *pools) GetDBConn() (*sql.DB, error) { return p.write, nil }

func (p *pools) close() error {
	var err error
	if p.ckpt != nil {
		err = p.ckpt.stop()
	}
	err = errors.Join(err, p.write.Close())
	if p.read != p.write {
		err = errors.Join(err, p.read.Close())
	}
	if p.mapped != nil {
		err = errors.Join(err, p.mapped.Close())
	}
	return err
}

// notifyTx is a transaction that reports its commit, and whether it wrote a table of who
// may do what or the fleet (set by the statements that did: countChanges).
type notifyTx struct {
	*sql.Tx
	ctx       context.Context
	committed func(ctx context.Context, f forgets)
	forget    forgets
	// done gives the writer's turn to the next, once the transaction ends.
	done     func()
	doneOnce sync.Once
}

// Rollback rolls back and gives the writer's turn to the next.
func (t *notifyTx) Rollback() error {
	err := t.Tx.Rollback()
	t.doneOnce.Do(t.done)
	return err
}

// Commit commits and reports it.
func (t *notifyTx) Commit() error {
	err := t.Tx.Commit()
	t.doneOnce.Do(t.done)
	if err == nil {
		t.committed(t.ctx, t.forget)
	}
	return err
}

// readPool returns the pool that reads with ctx, for reads that go below GORM to the driver.
func (s *Store) readPool(ctx context.Context) *sql.DB {
	return s.db.ConnPool.(*pools).reader(ctx)
}

// SQLPools are the store's connection pools by name — "kashi", or "kashi_write",
// "kashi_read" and "kashi_mapped" where reads have pools of their own (SQLite) — for their
// statistics (/metrics' go_sql_*).
func (s *Store) SQLPools() map[string]*sql.DB {
	p := s.db.ConnPool.(*pools)
	if p.read == p.write {
		return map[string]*sql.DB{"kashi": p.write}
	}
	return map[string]*sql.DB{"kashi_write": p.write, "kashi_read": p.read, "kashi_mapped": p.mapped}
}
