package proof

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // "pgx": the Postgres checks and database setup
	_ "github.com/mattn/go-sqlite3"    // "sqlite3": the SQLite checks

	"kashi/models/modelstest"
)

// The proofs run only when asked: -crash-kills for TestCrash, -replica-kills for
// TestReplicas, -month-days for TestMonth, -agree-days for TestAgree, -eta-minutes for TestETA. Postgres runs when KASHI_TEST_PG_DSN names a server where a database may be
// created (each run creates its own, proofs_<random>, and drops it when it passed).
var (
	crashKills   = flag.Int("crash-kills", 0, "TestCrash: SIGKILLs per database (0 skips the proof)")
	crashLife    = flag.Duration("crash-life", 8*time.Second, "TestCrash: the longest a server lives before its kill (each life is drawn between 0 and this)")
	replicaKills = flag.Int("replica-kills", 0, "TestReplicas: leaders killed (0 skips the proof)")
	monthDays    = flag.Float64("month-days", 0, "TestMonth: simulated days the demo runs at top speed, after its past is filled (0 skips the proof)")
	demoSpeed    = flag.Int("demo-speed", 600, "the demo clock's speed")
	keepDB       = flag.Bool("keep-db", false, "keep the proofs' databases for inspection")
	agreeDays    = flag.Float64("agree-days", 0, "TestAgree: simulated days the demo runs with faults while its figures are compared (0 skips the proof)")
	agreeEvery   = flag.Duration("agree-every", 6*time.Hour, "TestAgree: simulated time between two readings of every figure")
	etaMinutes   = flag.Float64("eta-minutes", 0, "TestETA: real minutes the demo's queue is read and its estimates scored (0 skips it)")
	etaOut       = flag.String("eta-out", "", "TestETA: a file for every task read, one JSON object a line")
)

// kashiBin is the binary TestMain built, when a proof is asked for.
var kashiBin string

func TestMain(m *testing.M) {
	flag.Parse()
	if *crashKills == 0 && *replicaKills == 0 && *monthDays == 0 && *agreeDays == 0 && *etaMinutes == 0 {
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "kashi-proof-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	kashiBin = filepath.Join(dir, "kashi")
	build := exec.Command("go", "build", "-o", kashiBin, "kashi")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build kashi:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// database is one database the servers of a proof share.
type database struct {
	// DSN is what `kashi serve --db` gets; Driver and Source open it with database/sql.
	DSN, Driver, Source string
	postgres            bool
}

// sqliteDB is a fresh SQLite file in t's temporary directory.
func sqliteDB(t *testing.T) database {
	path := filepath.Join(t.TempDir(), "kashi.db")
	return database{DSN: path, Driver: "sqlite3", Source: "file:" + path + "?_busy_timeout=10000"}
}

// postgresDB creates a database of its own on the server KASHI_TEST_PG_DSN names, dropped
// when the test passes (kept, and named in the log, when it fails). It skips without the
// variable.
func postgresDB(t *testing.T) database {
	dsn := os.Getenv(modelstest.PGEnv)
	if dsn == "" {
		t.Skip(modelstest.PGEnv + " not set")
	}
	var b [6]byte
	rand.Read(b[:])
	name := "proofs_" + hex.EncodeToString(b[:])
	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() || *keepDB {
			t.Logf("kept the database %s", name)
			return
		}
		if db, err := sql.Open("pgx", dsn); err == nil {
			db.Exec("DROP DATABASE " + name + " WITH (FORCE)")
			db.Close()
		}
	})
	own := withDBName(dsn, name)
	return database{DSN: own, Driver: "pgx", Source: own, postgres: true}
}

// withDBName replaces (or adds) dbname in a key=value DSN.
func withDBName(dsn, name string) string {
	var kept []string
	for _, f := range strings.Fields(dsn) {
		if !strings.HasPrefix(f, "dbname=") {
			kept = append(kept, f)
		}
	}
	return strings.Join(append(kept, "dbname="+name), " ")
}

// server is one `kashi serve` subprocess.
type server struct {
	Addr string
	cmd  *exec.Cmd
	// done is closed when the process has exited, with err its exit.
	done   chan struct{}
	err    error
	killed bool
}

// joinToken is the agents' join token of every server of a proof.
const joinToken = "kj_proof-join-token"

// startServer starts `kashi serve --demo` on db at addr, its log appended to logPath.
func startServer(t *testing.T, db database, addr, logPath string) *server {
	t.Helper()
	return startArgs(t, addr, logPath, "serve", "--demo", "--db", db.DSN, "--addr", addr, "--join-token", joinToken,
		"--demo-speed", fmt.Sprint(*demoSpeed), "--log-level", "info", "--lang", "en")
}

// startArgs starts kashi with args, its output appended to logPath.
func startArgs(t *testing.T, addr, logPath string, args ...string) *server {
	t.Helper()
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(kashiBin, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		t.Fatalf("start kashi: %v", err)
	}
	s := &server{Addr: addr, cmd: cmd, done: make(chan struct{})}
	go func() { s.err = cmd.Wait(); logf.Close(); close(s.done) }()
	return s
}

// kill sends SIGKILL and waits for the process to be gone. It returns the process's exit
// when it had already exited by itself (which a proof counts as a failure).
func (s *server) kill() (exitedBefore error) {
	select {
	case <-s.done:
		if s.killed {
			return nil
		}
		if s.err == nil {
			return errors.New("exited 0")
		}
		return s.err
	default:
	}
	s.killed = true
	s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.done
	return nil
}

// stop asks for a graceful shutdown and waits for it.
func (s *server) stop(t *testing.T) {
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
		if s.err != nil {
			t.Errorf("kashi serve at %s did not stop cleanly: %v", s.Addr, s.err)
		}
	case <-time.After(30 * time.Second):
		s.kill()
		t.Errorf("kashi serve at %s took over 30 s to stop", s.Addr)
	}
	s.killed = true
}

// waitHealthy polls /healthz until it answers 200, the process exits, or timeout passes.
func (s *server) waitHealthy(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		select {
		case <-s.done:
			return fmt.Errorf("kashi serve exited: %v", s.err)
		default:
		}
		resp, err := http.Get("http://" + s.Addr + "/healthz")
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("kashi serve at %s not healthy after %s", s.Addr, timeout)
}

// freeAddr returns a loopback address with a port free now.
func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// sleepCtx waits d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}
