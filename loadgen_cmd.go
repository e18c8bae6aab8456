package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"time"

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
		db, cpuProfile string
		maxConns       int
	)
	f := newFlags("loadgen", getenv, stderr)
	f.String(&cfg.Server, "server", "", "a running server's URL on loopback; empty starts one in-process")
	f.String(&db, "db", "", "with no --server: the database of the started server (default a fresh SQLite file)")
	f.Int(&maxConns, "db-max-conns", models.DefaultMaxConns, "with no --server: the started server's Postgres pool bound")
	f.Int(&cfg.Agents, "agents", 512, "agents, each with 8 GPUs")
	f.Int(&cfg.Viewers, "viewers", 20, "logged-in viewers loading the board")
	f.Float(&cfg.SubmitRate, "submit-rate", 50, "tasks submitted per second through the API")
	f.Duration(&cfg.Duration, "duration", 30*time.Second, "how long to run")
	f.Duration(&cfg.SampleEvery, "sample-every", time.Second, "each agent's sample period")
	f.Duration(&cfg.PollEvery, "poll-every", 5*time.Second, "each agent's assignment poll period")
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
