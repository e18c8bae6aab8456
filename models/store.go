// Package models holds Kashi's entities, the Store that reads and writes them, and the
// versioned schema migrations. The same code runs on SQLite (default) and Postgres.
package models

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"gorm.io/driver/postgres"
	"gorm.io/driver/sqlite"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// Thresholds classify GPU readings. Percentages are of utilization or of memory total.
type Thresholds struct {
	// IdleUtilPct: a reading under it is idle.
	IdleUtilPct int
	// ActiveUtilPct: a reading at or above it is active; between the two it is low-util.
	ActiveUtilPct int
	// SaturatedPct: memory or utilization at or above it is saturated.
	SaturatedPct int
}

// DefaultThresholds are used when the configuration does not set others.
var DefaultThresholds = Thresholds{IdleUtilPct: 10, ActiveUtilPct: 40, SaturatedPct: 95}

// Store wraps the database. Its methods are safe for concurrent use.
type Store struct {
	db         *gorm.DB
	postgres   bool
	thresholds Thresholds
	capacity   capacityCache
	now        func() time.Time
	secrets    secretBox
}

// Options configure Open.
type Options struct {
	Thresholds Thresholds
	// Now is the clock of every time the store stamps by itself (GORM's create and update
	// times, migrations); nil means time.Now. The demo's clock runs fast.
	Now func() time.Time
}

// Open connects to dsn — a SQLite file path, or a postgres:// (or "host=…") DSN — and runs
// the migrations.
func Open(ctx context.Context, dsn string, opts Options) (*Store, error) {
	if opts.Thresholds == (Thresholds{}) {
		opts.Thresholds = DefaultThresholds
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	cfg := &gorm.Config{Logger: logger.Discard, SkipDefaultTransaction: true, PrepareStmt: true, TranslateError: true,
		NowFunc: func() time.Time { return UTC(opts.Now()) }}
	var (
		db  *gorm.DB
		err error
	)
	pg := IsPostgresDSN(dsn)
	if pg {
		db, err = gorm.Open(postgres.Open(dsn), cfg)
	} else {
		db, err = gorm.Open(sqlite.Open(sqliteDSN(dsn)), cfg)
	}
	if err != nil {
		return nil, fmt.Errorf("models: open: %w", err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		return nil, fmt.Errorf("models: open: %w", err)
	}
	if !pg {
		// One writer at a time is SQLite's rule; a small pool keeps readers concurrent in WAL.
		sqlDB.SetMaxOpenConns(4)
	}
	s := &Store{db: db, postgres: pg, thresholds: opts.Thresholds, now: opts.Now}
	if err := s.migrate(ctx); err != nil {
		sqlDB.Close()
		return nil, err
	}
	return s, nil
}

// IsPostgresDSN reports whether dsn selects Postgres rather than a SQLite file.
func IsPostgresDSN(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") ||
		strings.HasPrefix(dsn, "host=")
}

// sqliteDSN adds WAL, busy timeout and foreign keys to a SQLite path.
func sqliteDSN(path string) string {
	params := "_journal_mode=WAL&_synchronous=NORMAL&_busy_timeout=5000&_foreign_keys=on&_txlock=immediate&_cache_size=-65536"
	if strings.Contains(path, "?") {
		return path + "&" + params
	}
	return "file:" + path + "?" + params
}

// Close closes the database.
func (s *Store) Close() error {
	sqlDB, err := s.db.DB()
	if err != nil {
		return err
	}
	return sqlDB.Close()
}

// Thresholds returns the classification thresholds the store applies.
func (s *Store) Thresholds() Thresholds { return s.thresholds }

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

// FieldError is bad input: Field names what is wrong (a JSON path such as "samples[3].uuid").
// Handlers answer it with a 4xx and the message.
type FieldError struct {
	Field string
	Msg   string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

// fieldErr builds a *FieldError with a formatted message.
func fieldErr(field, format string, args ...any) error {
	return &FieldError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// notFound wraps ErrNotFound when err is GORM's record-not-found.
func notFound(what string, err error) error {
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return fmt.Errorf("models: %s: %w", what, ErrNotFound)
	}
	return fmt.Errorf("models: %s: %w", what, err)
}
