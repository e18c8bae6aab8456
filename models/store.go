// Package models holds Kashi's entities, the Store that reads and writes them, and the
// versioned schema migrations. The same code runs on SQLite (default) and Postgres.
//
// One exception to "the database is the state": each GPU's latest reading and its idle and
// saturation timers are held in memory (live_view.go) as soon as their samples commit, read
// from there by every read of GPUs in the process, and written to the GPUs' rows behind,
// once per Options.WriteBehind and on Close (gpu_write_behind.go). Another replica reads
// the rows, at most that interval behind; a crash loses at most that interval of latest
// readings, never a stored sample.
package models

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// Thresholds classify GPU readings. Percentages are of utilization or of memory total. The
// idle and active ones are metering settings (BillingSettings): the ledger's definitions,
// recorded on every rollup they classify; the saturation mark is the board's.
type Thresholds struct {
	// IdleUtilPct: a reading under it is idle.
	IdleUtilPct int
	// ActiveUtilPct: a reading at or above it is active; between the two it is low-util.
	ActiveUtilPct int
	// SaturatedPct: memory or utilization at or above it is saturated.
	SaturatedPct int
}

// DefaultThresholds are used where the billing settings set no others.
var DefaultThresholds = Thresholds{IdleUtilPct: 10, ActiveUtilPct: 40, SaturatedPct: 95}

// Store wraps the database. Its methods are safe for concurrent use.
type Store struct {
	db       *gorm.DB
	closeDB  func() error
	postgres bool
	// metering is the thresholds in force, read from the billing settings.
	metering atomic.Pointer[Thresholds]
	capacity capacityCache
	// nodeTokens remembers verified node tokens; auth API tokens and callers' roles; fleet
	// the nodes and cards.
	nodeTokens nodeTokenCache
	auth       authCache
	fleet      fleetCache
	// gen counts writes that may change the board (changes.go); samples, submits and writes
	// feed the group commits of samples, of submitted tasks and of agents' writes (write_group.go); gpuRows holds the GPU rows it reads; live holds each GPU's latest
	// reading, which readings writes to the rows behind; board is the board's snapshot.
	gen      atomic.Uint64
	samples  *groupCommitter[*sampleJob]
	submits  *groupCommitter[*submitJob]
	writes   *groupCommitter[*groupedWrite]
	gpuRows  gpuRowCache
	live     liveView
	readings *readingWriter
	board    boardCache
	// hints size the reads of whole sets (row_scan.go).
	hints sizeHints
	// strips caches the board's recent-use strips between rollup runs (util_strip.go);
	// poolMemory the pools' settled buckets of memory use (pool_memory.go).
	strips     stripCache
	poolMemory poolMemoryCache
	// usage keeps the quotas' settled use (quota_usage.go).
	usage   usageCache
	now     func() time.Time
	secrets secretBox
	// roots are the directories path data checks may look under (SetDataRoots).
	roots dataRoots
	// assigns wakes the agents waiting for their assignments (assignment_watch.go).
	assigns assignWatch
}

// Options configure Open.
type Options struct {
	// BoardLag is how far behind the latest change the board may show nodes and holders:
	// while viewed, the board is read again behind the viewers every half lag, and a request
	// waits for a read only when the snapshot is twice the lag old (a lag stretched to 20
	// times the read's own time where that is longer: board_cache.go); zero reads it before
	// answering. Readings are current in what the store returns; one render of the board
	// serves its viewers for up to the lag (handlers/board, board_share.go).
	BoardLag time.Duration
	// MaxConns bounds the Postgres connection pool; zero means DefaultMaxConns. SQLite
	// always has one writer and a small read pool.
	MaxConns int
	// WriteBehind is how often the GPUs' latest readings are written to their rows (they are
	// read from memory in this process at once); zero means DefaultWriteBehind.
	WriteBehind time.Duration
	// Now is the clock of every time the store stamps by itself (GORM's create and update
	// times, migrations); nil means time.Now. The demo's clock runs fast.
	Now func() time.Time
}

// Open connects to dsn — a SQLite file path, or a postgres:// (or "host=…") DSN — and runs
// the migrations.
func Open(ctx context.Context, dsn string, opts Options) (*Store, error) {
	if opts.MaxConns <= 0 {
		opts.MaxConns = DefaultMaxConns
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.WriteBehind <= 0 {
		opts.WriteBehind = DefaultWriteBehind
	}
	pg := IsPostgresDSN(dsn)
	// Statements are prepared by the driver, per connection: pgx caches each connection's
	// prepared statements (a bounded LRU), and SQLite's driver prepares as it goes. GORM's own
	// cache (PrepareStmt) is not used: it is one cache for the whole pool, and it holds its
	// lock while a caller waits for a statement that is waiting for a connection, so a burst
	// whose transactions held every connection stalled until the callers gave up
	// (TestNewStatementBesideAFullPool).
	cfg := &gorm.Config{Logger: logger.Discard, SkipDefaultTransaction: true, TranslateError: true,
		NowFunc: func() time.Time { return UTC(opts.Now()) }}
	s := &Store{postgres: pg, board: boardCache{lag: opts.BoardLag}, now: opts.Now, assigns: assignWatch{kick: make(chan struct{}, 1)}}
	var (
		dial    gorm.Dialector
		closeDB func() error
		err     error
	)
	if pg {
		dial, closeDB, err = postgresDialector(dsn, opts.MaxConns, s.committed)
	} else {
		dial, closeDB, err = sqliteDialector(dsn, s.committed)
	}
	if err != nil {
		return nil, fmt.Errorf("models: open: %w", err)
	}
	db, err := gorm.Open(dial, cfg)
	if err != nil {
		closeDB()
		return nil, fmt.Errorf("models: open: %w", err)
	}
	s.db, s.closeDB = db, closeDB
	if err := s.countChanges(db); err != nil {
		closeDB()
		return nil, fmt.Errorf("models: open: %w", err)
	}
	if err := s.migrate(ctx); err != nil {
		closeDB()
		return nil, err
	}
	bs, err := s.BillingSettings(ctx)
	if err != nil {
		closeDB()
		return nil, err
	}
	s.metering.Store(new(bs.Metering()))
	s.samples = startSampleCommitter(s)
	s.submits = startSubmitCommitter(s)
	s.writes = startWriteCommitter(s)
	s.readings = startReadingWriter(s, opts.WriteBehind)
	if opts.BoardLag > 0 {
		s.keepBoard()
	}
	return s, nil
}

// IsPostgresDSN reports whether dsn selects Postgres rather than a SQLite file.
func IsPostgresDSN(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") ||
		strings.HasPrefix(dsn, "host=")
}

// Close writes the GPUs' latest readings to their rows and closes the database.
func (s *Store) Close() error {
	s.samples.stop()
	s.submits.stop()
	s.writes.stop()
	werr := s.readings.stop()
	s.stopBoard()
	s.EndAssignmentWaits()
	return errors.Join(werr, s.closeDB())
}

// Thresholds returns the classification thresholds in force.
func (s *Store) Thresholds() Thresholds { return *s.metering.Load() }

// Ping checks the database answers.
func (s *Store) Ping(ctx context.Context) error {
	sqlDB, err := s.db.DB()
	if err != nil {
		return err
	}
	return sqlDB.PingContext(ctx)
}

// UTC is how every timestamp is stored: in UTC, to the whole second. Whole seconds keep
// SQLite's text timestamps in order and metering exact to the second.
func UTC(t time.Time) time.Time { return t.UTC().Truncate(time.Second) }

// ErrNotFound is returned (wrapped) when a looked-up row does not exist.
var ErrNotFound = errors.New("not found")

// notFound wraps ErrNotFound when err is GORM's record-not-found.
func notFound(what string, err error) error {
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return fmt.Errorf("models: %s: %w", what, ErrNotFound)
	}
	return fmt.Errorf("models: %s: %w", what, err)
}
