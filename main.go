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
	"strconv"
	"strings"
	"syscall"
	"time"
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
  version   print the version

from a terminal or a script, over the JSON API (KASHI_SERVER and KASHI_TOKEN, or kashi login):
` + cli.Usage() + `

Run "kashi <command> -h" for a command's flags; each flag of serve, agent and the others is
also read from KASHI_<NAME>.`

// run dispatches a subcommand. getenv supplies KASHI_* defaults for flags.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return errors.New("no command given")
	}
	switch args[0] {
	case "serve":
		cfg, err := parseServe(args[1:], getenv, stderr)
		if err != nil {
			return err
		}
		return serve(ctx, cfg, newLogger(stderr, cfg.LogLevel))
	case "agent":
		if len(args) > 1 && args[1] == "supervise" {
			return runSupervise(args[2:])
		}
		cfg, err := parseAgent(args[1:], getenv, stderr)
		if err != nil {
			return err
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
		fmt.Fprintln(stderr, usage)
		return fmt.Errorf("unknown command %q", args[0])
	}
}

func newLogger(w io.Writer, level string) *slog.Logger {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		l = slog.LevelInfo
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l}))
}

// flags wraps a FlagSet so that every flag's default can come from KASHI_<NAME>, where NAME
// is the flag's name upper-cased with '-' as '_'.
type flags struct {
	fs     *flag.FlagSet
	getenv func(string) string
	errs   []error
}

func newFlags(name string, getenv func(string) string, stderr io.Writer) *flags {
	fs := flag.NewFlagSet("kashi "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return &flags{fs: fs, getenv: getenv}
}

func envName(flag string) string {
	return "KASHI_" + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

func (f *flags) env(name string) (string, bool) {
	v := f.getenv(envName(name))
	return v, v != ""
}

// given reports whether flag name was set, on the command line or by its KASHI_ variable
// (after parse).
func (f *flags) given(name string) bool {
	_, set := f.env(name)
	f.fs.Visit(func(fl *flag.Flag) { set = set || fl.Name == name })
	return set
}

func (f *flags) String(p *string, name, def, help string) {
	if v, ok := f.env(name); ok {
		def = v
	}
	f.fs.StringVar(p, name, def, help+" ("+envName(name)+")")
}

func (f *flags) Bool(p *bool, name string, def bool, help string) {
	if v, ok := f.env(name); ok {
		b, err := strconv.ParseBool(v)
		if err != nil {
			f.errs = append(f.errs, fmt.Errorf("%s: %q is not a boolean", envName(name), v))
		}
		def = b
	}
	f.fs.BoolVar(p, name, def, help+" ("+envName(name)+")")
}

func (f *flags) Duration(p *time.Duration, name string, def time.Duration, help string) {
	if v, ok := f.env(name); ok {
		d, err := time.ParseDuration(v)
		if err != nil {
			f.errs = append(f.errs, fmt.Errorf("%s: %q is not a duration", envName(name), v))
		}
		def = d
	}
	f.fs.DurationVar(p, name, def, help+" ("+envName(name)+")")
}

func (f *flags) Float(p *float64, name string, def float64, help string) {
	if v, ok := f.env(name); ok {
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			f.errs = append(f.errs, fmt.Errorf("%s: %q is not a number", envName(name), v))
		}
		def = x
	}
	f.fs.Float64Var(p, name, def, help+" ("+envName(name)+")")
}

// parse parses args and reports the first bad environment value or flag.
func (f *flags) parse(args []string) error {
	if err := f.fs.Parse(args); err != nil {
		return err
	}
	if f.fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", f.fs.Arg(0))
	}
	return errors.Join(f.errs...)
}

// positive checks that each named duration is above zero.
func positive(ds map[string]time.Duration) error {
	for name, d := range ds {
		if d <= 0 {
			return fmt.Errorf("--%s must be positive, got %s", name, d)
		}
	}
	return nil
}
