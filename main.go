// Command kashi is a self-hosted GPU pool manager: occupancy board, queue, quotas, scaling
// loop and bills in one server (`kashi serve`), and the node agent (`kashi agent`).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	_ "time/tzdata" // time zones without relying on the host's tzdata

	"kashi/cli"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "kashi:", err)
		os.Exit(exitCode(err))
	}
}

var usage = `usage: kashi <command> [flags]

commands:
  serve     run the server: web UI, API and control loops (--demo for a simulated fleet)
  agent     run the node agent on a GPU machine
  user add  add a user (password from KASHI_PASSWORD, else one is generated and printed)
  token create  print a new API token for a user, once
  replay    run the scheduler and scaling decisions over a job trace (threshold calibration)
  loadgen   drive a server on loopback with agents, viewers and a submitting script
  archive verify  read the archived bills back and compare their SHA-256 with the database's
  restore   make a new database from the latest backup in the archive (--from s3://bucket/prefix)
  version   print the version

from a terminal or a script, over the JSON API (KASHI_SERVER and KASHI_TOKEN, or kashi login):
` + cli.Usage() + `

Run "kashi <command> -h" for a command's flags; each flag of serve, agent and the others is
also read from KASHI_<NAME>.`

// run runs a subcommand: a command's -h (flag.ErrHelp) is no error.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if err := dispatch(ctx, args, getenv, stdout, stderr); !errors.Is(err, flag.ErrHelp) {
		return err
	}
	return nil
}

// dispatch dispatches a subcommand. getenv supplies KASHI_* defaults for flags. What serve's
// and agent's flags say is checked before they start, and any of it refused exits 2.
func dispatch(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return &cli.ExitError{Code: cli.ExitUsage, Err: errors.New("no command given")}
	}
	switch args[0] {
	case "serve":
		cfg, err := parseServe(args[1:], getenv, stderr)
		if err != nil {
			return usageError(err)
		}
		return serve(ctx, cfg, newLogger(stderr, cfg.LogLevel))
	case "agent":
		if len(args) > 1 && args[1] == "supervise" {
			return runSupervise(args[2:])
		}
		cfg, err := parseAgent(args[1:], getenv, stderr)
		if err != nil {
			return usageError(err)
		}
		return runAgent(ctx, cfg, stdout, newLogger(stderr, cfg.LogLevel))
	case "user":
		return runUser(ctx, args[1:], getenv, stdout, stderr)
	case "token":
		return runToken(ctx, args[1:], getenv, stdout, stderr)
	case "replay":
		return runReplay(args[1:], getenv, stdout, stderr)
	case "loadgen":
		return runLoadgen(ctx, args[1:], getenv, stdout, stderr)
	case "archive":
		return runArchive(ctx, args[1:], getenv, stdout, stderr)
	case "restore":
		return runRestore(ctx, args[1:], getenv, stdout, stderr)
	case "version", "--version", "-version":
		fmt.Fprintln(stdout, "kashi", version)
		return nil
	case "help", "-h", "--help":
		fmt.Fprintln(stdout, usage)
		return nil
	default:
		if cli.IsVerb(args[0]) {
			return runCLI(ctx, args, getenv, stdout, stderr)
		}
		return &cli.ExitError{Code: cli.ExitUsage, Err: fmt.Errorf("unknown command %q (kashi help lists them)", args[0])}
	}
}

func newLogger(w io.Writer, level string) *slog.Logger {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		l = slog.LevelInfo
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l}))
}
