// Package modelstest gives tests their stores and fixtures: it opens stores (SQLite in a
// temporary directory always, and Postgres too when KASHI_TEST_PG_DSN is set, each test in a
// schema of its own), and builds nodes with GPUs, tasks, and tasks running on a node.
package modelstest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver for schema setup

	"kashi/models"
)

// PGEnv names the variable holding a Postgres DSN for tests.
const PGEnv = "KASHI_TEST_PG_DSN"

// ForEachDB runs f as a subtest on a fresh SQLite store and, when KASHI_TEST_PG_DSN is set,
// on a fresh Postgres store.
func ForEachDB(t *testing.T, opts models.Options, f func(t *testing.T, s *models.Store)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) { f(t, SQLite(t, opts)) })
	if os.Getenv(PGEnv) != "" {
		t.Run("postgres", func(t *testing.T) { f(t, Postgres(t, opts)) })
	}
}

// ForEachDBReplicas runs f as a subtest on two stores over one fresh database, as two
// replicas of the server see it: SQLite always, Postgres when KASHI_TEST_PG_DSN is set.
func ForEachDBReplicas(t *testing.T, opts models.Options, f func(t *testing.T, a, b *models.Store)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "kashi.db")
		f(t, openStore(t, path, opts), openStore(t, path, opts))
	})
	if os.Getenv(PGEnv) != "" {
		t.Run("postgres", func(t *testing.T) {
			dsn := postgresSchema(t)
			f(t, openStore(t, dsn, opts), openStore(t, dsn, opts))
		})
	}
}

// SQLite opens a migrated store on a new file in t.TempDir().
func SQLite(t testing.TB, opts models.Options) *models.Store {
	t.Helper()
	return openStore(t, filepath.Join(t.TempDir(), "kashi.db"), opts)
}

// openStore opens a migrated store on dsn, closed when the test ends.
func openStore(t testing.TB, dsn string, opts models.Options) *models.Store {
	t.Helper()
	s, err := models.Open(context.Background(), dsn, opts)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// Postgres opens a migrated store in a new schema of the database KASHI_TEST_PG_DSN names,
// dropped when the test ends. It skips the test when the variable is unset.
func Postgres(t testing.TB, opts models.Options) *models.Store {
	t.Helper()
	return openStore(t, postgresSchema(t), opts)
}

// postgresSchema makes a new schema in the database KASHI_TEST_PG_DSN names, dropped when
// the test ends, and returns the DSN of it. It skips the test when the variable is unset.
func postgresSchema(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(PGEnv)
	if dsn == "" {
		t.Skip(PGEnv + " not set")
	}
	var b [6]byte
	rand.Read(b[:])
	schema := "t_" + hex.EncodeToString(b[:])
	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatalf("open postgres: %v", err)
	}
	defer admin.Close()
	if _, err := admin.Exec("CREATE SCHEMA " + schema); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		if db, err := sql.Open("pgx", dsn); err == nil {
			db.Exec("DROP SCHEMA " + schema + " CASCADE")
			db.Close()
		}
	})
	return withSearchPath(dsn, schema)
}

// withSearchPath adds search_path to a URL or key=value DSN.
func withSearchPath(dsn, schema string) string {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err == nil {
			q := u.Query()
			q.Set("search_path", schema)
			u.RawQuery = q.Encode()
			return u.String()
		}
	}
	return dsn + " search_path=" + schema
}
