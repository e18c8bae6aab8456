package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver, for the steps' schemas

	"kashi/api"
	"kashi/loadgen"
	"kashi/models"
)

// loadgenUsers are the accounts `kashi loadgen` creates when it starts the server itself.
const (
	loadgenViewer   = "load-viewer"
	loadgenScript   = "load-script"
	loadgenProject  = "load"
	loadgenPassword = "load-password"
)

// runLoadgen handles `kashi loadgen`: it starts a server on loopback (a fresh SQLite file, or
// --db) unless --server names one, drives it, prints the report, and fails when any request
// failed.
func runLoadgen(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg := loadgen.Config{GPUsPerAgent: 8, Project: loadgenProject, ViewerName: loadgenViewer, ViewerPassword: loadgenPassword,
		Spec: models.SpecOf("NVIDIA A100-SXM4-80GB", 81920)}
	var (
		db, cpuProfile, steps string
		maxConns              int
	)
	f := newFlags("loadgen", getenv, stderr)
	f.String(&cfg.Server, "server", "", "a running server's URL on loopback; empty starts one in-process")
	f.String(&db, "db", "", "with no --server: the database of the started server (default a fresh SQLite file)")
	f.Int(&maxConns, "db-max-conns", models.DefaultMaxConns, "with no --server: the started server's Postgres pool bound")
	f.Int(&cfg.Agents, "agents", 512, "agents, each with 8 GPUs (at most 8192)")
	f.String(&steps, "step-agents", "", "a step test: agents of each step, comma-separated (e.g. 1024,2048,4096,8192), each step on a fresh server and database for --duration; prints each step and where it stopped holding")
	f.Int(&cfg.Viewers, "viewers", 20, "logged-in viewers loading the board")
	f.Float(&cfg.SubmitRate, "submit-rate", 50, "tasks submitted per second through the API")
	f.Duration(&cfg.Duration, "duration", 30*time.Second, "how long to run")
	f.Duration(&cfg.SampleEvery, "sample-every", 10*time.Second, "each agent's sample period (the agent's default)")
	f.Duration(&cfg.AssignmentsWait, "assignments-wait", api.DefaultAssignmentsWait, "each agent's long poll of its assignments (the agent's default); 0 polls every --poll-every")
	f.Duration(&cfg.PollEvery, "poll-every", 5*time.Second, "each agent's assignment poll period with --assignments-wait 0, and its pause after a failed request")
	f.Duration(&cfg.TaskRuntime, "task-runtime", 30*time.Second, "how long an agent runs a task it is given before it reports the exit")
	f.Duration(&cfg.ViewEvery, "view-every", 5*time.Second, "each viewer's board period")
	f.Duration(&cfg.Timeout, "timeout", 10*time.Second, "a request running longer is an error")
	f.String(&cfg.JoinToken, "join-token", "", "with --server: the agents' join token")
	f.String(&cfg.ViewerName, "viewer", loadgenViewer, "with --server: the viewers' user")
	f.String(&cfg.ViewerPassword, "viewer-password", loadgenPassword, "with --server: the viewers' password")
	f.String(&cfg.APIToken, "api-token", "", "with --server: a write token of a user who may submit to --project")
	f.String(&cfg.Project, "project", loadgenProject, "the project tasks are submitted to")
	f.String(&cpuProfile, "cpu-profile", "", "write a CPU profile of the measured load (this process: the generator and a started server) to this file")
	if err := f.parse(args); err != nil {
		return err
	}
	if cpuProfile != "" {
		out, err := os.Create(cpuProfile)
		if err != nil {
			return err
		}
		defer out.Close()
		cfg.Measure = func() func() {
			if err := pprof.StartCPUProfile(out); err != nil {
				fmt.Fprintf(stderr, "loadgen: cpu profile: %v\n", err)
				return func() {}
			}
			return pprof.StopCPUProfile
		}
	}
	selfStart := cfg.Server == ""
	if selfStart {
		cfg.Server = "http://127.0.0.1" // the started server's port is chosen below
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	if steps != "" {
		counts, err := stepCounts(steps)
		if err != nil {
			return err
		}
		if !selfStart {
			return errors.New("--step-agents starts a fresh server for each step: it does not take --server")
		}
		return runSteps(ctx, cfg, counts, db, maxConns, stdout, stderr)
	}
	if selfStart {
		stop, err := startLoadServer(ctx, &cfg, db, maxConns, stderr)
		if err != nil {
			return err
		}
		defer stop()
	}
	rep, err := loadgen.Run(ctx, cfg)
	if err != nil {
		return err
	}
	rep.Write(stdout)
	if n := rep.Errors(); n > 0 {
		return fmt.Errorf("loadgen: %d requests failed", n)
	}
	return nil
}

// stepCounts reads --step-agents: up to 8 counts, each from 1 to loadgen.MaxAgents.
func stepCounts(list string) ([]int, error) {
	var counts []int
	for _, p := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 1 || n > loadgen.MaxAgents {
			return nil, fmt.Errorf("--step-agents: %q is not a count of agents from 1 to %d", p, loadgen.MaxAgents)
		}
		counts = append(counts, n)
	}
	if len(counts) > 8 {
		return nil, errors.New("--step-agents: at most 8 steps")
	}
	return counts, nil
}

// runSteps runs the load at each count of agents, each on a fresh server and database,
// prints each step's report and then one line a step: the latencies, errors, memory and CPU,
// the first target it missed and the resource nearest its end. It fails when a step failed
// requests.
func runSteps(ctx context.Context, cfg loadgen.Config, counts []int, db string, maxConns int, stdout, stderr io.Writer) error {
	type step struct {
		agents int
		rep    *loadgen.Report
	}
	var done []step
	for i, n := range counts {
		c := cfg
		c.Agents = n
		stepDB, err := loadStepDB(ctx, db, i)
		if err != nil {
			return err
		}
		stop, err := startLoadServer(ctx, &c, stepDB, maxConns, stderr)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "== step %d: %d agents (%d GPUs), %d viewers, %g submits/s, %s\n", i+1, n, n*c.GPUsPerAgent, c.Viewers, c.SubmitRate, c.Duration)
		rep, err := loadgen.Run(ctx, c)
		stop()
		if err != nil {
			return err
		}
		rep.Write(stdout)
		done = append(done, step{n, rep})
	}
	fmt.Fprintf(stdout, "\n%-7s %-17s %-17s %-17s %-17s %6s %7s %5s  %s\n", "agents", "ingest p50/p99", "board p50/p99", "submit p50/p99", "assign p50/p99", "errors", "RSS MiB", "CPU", "held / first missed; nearest resource")
	failed, broke := 0, ""
	for _, s := range done {
		k := s.rep.Kinds
		pair := func(kind string) string { return ms(k[kind].P50) + "/" + ms(k[kind].P99) }
		missed := loadgen.IssueTargets.Missed(s.rep)
		if missed == "" {
			missed = "held"
		} else if broke == "" {
			broke = fmt.Sprintf("%d agents (%s)", s.agents, missed)
		}
		res, score := s.rep.Use.Nearest()
		fmt.Fprintf(stdout, "%-7d %-17s %-17s %-17s %-17s %6d %7d %4.0f%%  %s; %s at %.0f %% of its limit\n", s.agents, pair(loadgen.KindIngest),
			pair(loadgen.KindBoard), pair(loadgen.KindSubmit), pair(loadgen.KindAssign), s.rep.Errors(), s.rep.PeakRSSMiB,
			100*s.rep.Use.CPUShare(), missed, res, 100*score)
		failed += s.rep.Errors()
	}
	if broke == "" {
		broke = "every step held"
	}
	fmt.Fprintf(stdout, "stopped holding at: %s\n", broke)
	if failed > 0 {
		return fmt.Errorf("loadgen: %d requests failed", failed)
	}
	return nil
}

// ms is a latency in milliseconds, to one decimal.
func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 1, 64)
}

// loadStepDB is step i's database: "" (a fresh SQLite file) without --db or with a SQLite
// one; on Postgres, a fresh schema loadgen_step<i> of --db's database.
func loadStepDB(ctx context.Context, db string, i int) (string, error) {
	if !models.IsPostgresDSN(db) {
		if db != "" {
			return "", errors.New("--step-agents with --db takes a Postgres DSN (each step gets a fresh schema); without --db each step gets a fresh SQLite file")
		}
		return "", nil
	}
	schema := fmt.Sprintf("loadgen_step%d", i+1)
	conn, err := sql.Open("pgx", db)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "DROP SCHEMA IF EXISTS "+schema+" CASCADE"); err != nil {
		return "", fmt.Errorf("loadgen: step schema: %w", err)
	}
	if _, err := conn.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		return "", fmt.Errorf("loadgen: step schema: %w", err)
	}
	if strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://") {
		u, err := url.Parse(db)
		if err != nil {
			return "", fmt.Errorf("--db: %w", err)
		}
		q := u.Query()
		q.Set("search_path", schema)
		u.RawQuery = q.Encode()
		return u.String(), nil
	}
	return db + " search_path=" + schema, nil
}

// startLoadServer seeds the accounts the load needs in db (a fresh SQLite file when empty),
// starts `kashi serve` on a free loopback port in-process, and waits until it answers.
func startLoadServer(ctx context.Context, cfg *loadgen.Config, db string, maxConns int, stderr io.Writer) (stop func(), err error) {
	var cleanup []func()
	stop = func() {
		for i := len(cleanup) - 1; i >= 0; i-- {
			cleanup[i]()
		}
	}
	defer func() {
		if err != nil {
			stop()
		}
	}()
	if db == "" {
		dir, err := os.MkdirTemp("", "kashi-loadgen-")
		if err != nil {
			return nil, err
		}
		cleanup = append(cleanup, func() { os.RemoveAll(dir) })
		db = filepath.Join(dir, "kashi.db")
	}
	if cfg.APIToken, err = seedLoad(ctx, db); err != nil {
		return nil, err
	}
	cfg.JoinToken, _ = models.NewToken("kj_")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	sc, err := parseServe([]string{"--addr", addr, "--db", db, "--join-token", cfg.JoinToken, "--log-level", "error",
		"--db-max-conns", strconv.Itoa(maxConns)}, func(string) string { return "" }, stderr)
	if err != nil {
		return nil, err
	}
	srvCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan error, 1)
	go func() { done <- serve(srvCtx, sc, newLogger(stderr, sc.LogLevel)) }()
	cleanup = append(cleanup, func() { cancel(); <-done })
	cfg.Server = "http://" + addr
	for range 100 {
		select {
		case err := <-done:
			done <- err
			return nil, fmt.Errorf("loadgen: server stopped: %w", err)
		case <-time.After(100 * time.Millisecond):
		}
		if resp, err := http.Get(cfg.Server + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return stop, nil
			}
		}
	}
	return nil, errors.New("loadgen: the server did not answer /healthz within 10 s")
}

// seedLoad creates the viewer, the script user with a write token, and the project, and
// returns the token.
func seedLoad(ctx context.Context, db string) (string, error) {
	store, err := models.Open(ctx, db, models.Options{})
	if err != nil {
		return "", err
	}
	defer store.Close()
	now := time.Now()
	if _, err := store.CreateUser(ctx, loadgenViewer, loadgenPassword, models.RoleViewer, now); err != nil {
		return "", err
	}
	script, err := store.CreateUser(ctx, loadgenScript, loadgenPassword, models.RoleAdmin, now)
	if err != nil {
		return "", err
	}
	if _, err := store.EnsureProject(ctx, loadgenProject, now); err != nil {
		return "", err
	}
	token, _, err := store.CreateAPIToken(ctx, script.ID, "loadgen", models.ScopeWrite, now)
	return token, err
}
