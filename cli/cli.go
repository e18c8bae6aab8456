// Package cli is Kashi's command line for people and scripts: submit, list, follow and
// cancel tasks, read the queue and the fleet, download bills. It speaks the JSON API with a
// token, as curl would, so it runs anywhere the server can be reached.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"
)

// Exit codes a script can rely on. `kashi submit --wait` exits with the task's own code
// instead when the task ran and exited.
const (
	// ExitFailed: the server refused the request, or the task ended without an exit code
	// (cancelled, failed to start, timed out, reclaimed).
	ExitFailed = 1
	// ExitUsage: bad flags or arguments; nothing was sent.
	ExitUsage = 2
	// ExitUnreachable: no server or no token configured, or the server could not be reached.
	ExitUnreachable = 3
	// ExitAuth: the token was refused (401) or lacks the right (403).
	ExitAuth = 4
	// ExitNotFound: the task, project or bill does not exist or is not visible (404).
	ExitNotFound = 5
)

// ExitError is an error with the process exit code it calls for.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// ExitCode is the code the process should exit with.
func (e *ExitError) ExitCode() int { return e.Code }

// exitf is an ExitError with a formatted message.
func exitf(code int, format string, a ...any) error {
	return &ExitError{Code: code, Err: fmt.Errorf(format, a...)}
}

// Env is what the commands read from outside: the environment, standard output and error, the
// HTTP client and the clock's sleep (tests shorten it).
type Env struct {
	Getenv func(string) string
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	HTTP   *http.Client
	// Poll is the period of --wait and logs -f; default 2 s.
	Poll time.Duration
}

// verb is one CLI command.
type verb struct {
	name, args, summary string
	run                 func(ctx context.Context, e *Env, args []string) error
}

// verbs lists the commands in the order usage shows them.
func verbs() []verb {
	return []verb{
		{"login", "[--server URL]", "store the server and a token (read from stdin) in the config file", runLogin},
		{"submit", "[flags] [-f FILE] [-- COMMAND…]", "submit a task and print its id (--wait: follow it, exit with its code)", runSubmit},
		{"tasks", "[flags]", "list tasks (yours by default), like squeue", runTasks},
		{"show", "ID", "one task: fields, events, why it waits and when it may start", runShow},
		{"cancel", "ID… | --pipeline ID", "cancel tasks, or a pipeline", runCancel},
		{"ready", "ID…", "mark tasks' data ready: they join the queue", runReady},
		{"logs", "[-f] ID", "the end of a task's log (-f: follow until it ends)", runLogs},
		{"queue", "[flags]", "waiting tasks in order, with ETA and reason, and free capacity", runQueue},
		{"gpus", "[flags]", "the fleet like sinfo: GPUs per spec and node, free and held", runGPUs},
		{"trial", "list|show ID|start|run-full ID [flags]", "small trials before the full run: list, show the figures and proposal, start one, submit its full run", runTrial},
		{"bill", "PROJECT MONTH [--format csv|xlsx|json] [--lines] [-o FILE]", "download a project's monthly bill", runBill},
		{"completion", "bash|zsh|fish", "print a shell completion script", runCompletion},
	}
}

// IsVerb reports whether name is a CLI command (main dispatches those here), the hidden
// __complete of the completion scripts included.
func IsVerb(name string) bool {
	return name == completeVerb || slices.ContainsFunc(verbs(), func(v verb) bool { return v.name == name })
}

// Usage is the CLI part of the binary's usage text.
func Usage() string {
	var b strings.Builder
	for _, v := range verbs() {
		fmt.Fprintf(&b, "  %-10s %s\n", v.name, v.summary)
	}
	return strings.TrimRight(b.String(), "\n")
}

// Run runs the CLI command args[0] with its arguments. Errors carry an exit code (ExitError).
func Run(ctx context.Context, args []string, e Env) error {
	if e.HTTP == nil {
		e.HTTP = &http.Client{Timeout: 60 * time.Second}
	}
	if e.Poll <= 0 {
		e.Poll = 2 * time.Second
	}
	if e.Stdin == nil {
		e.Stdin = os.Stdin
	}
	all := append(verbs(), verb{name: completeVerb, args: "states|projects|tasks", summary: "values for shell completion", run: runCompleteValues})
	for _, v := range all {
		if len(args) > 0 && v.name == args[0] {
			err := v.run(ctx, &e, args[1:])
			if errors.Is(err, flag.ErrHelp) {
				return nil
			}
			var ee *ExitError
			if err != nil && !errors.As(err, &ee) {
				err = &ExitError{Code: ExitFailed, Err: err}
			}
			return err
		}
	}
	return exitf(ExitUsage, "unknown command %q (kashi help lists them)", strings.Join(args[:min(1, len(args))], ""))
}

// flagSet is a verb's flags with the usage line `kashi VERB ARGS` and the connection flags.
type flagSet struct {
	*flag.FlagSet
	conn connFlags
	// stderr is where -h prints; args is the verb's usage line after its name.
	stderr io.Writer
	args   string
	// pos are the positional arguments after parse.
	pos []string
}

// newFlagSet starts the flags of the verb named name.
func newFlagSet(e *Env, name string) *flagSet {
	var v verb
	for _, x := range verbs() {
		if x.name == name {
			v = x
		}
	}
	fs := flag.NewFlagSet("kashi "+name, flag.ContinueOnError)
	fs.SetOutput(e.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: kashi %s %s\n\n%s\n\nflags:\n", name, v.args, v.summary)
		fs.PrintDefaults()
	}
	f := &flagSet{FlagSet: fs, stderr: e.Stderr, args: v.args}
	fs.StringVar(&f.conn.server, "server", "", "the server's URL (KASHI_SERVER, else the config file)")
	return f
}

// parse parses args, flags and positional arguments in any order (everything after "--" is
// positional), and checks the count of positional arguments (maxArgs < 0: any number).
func (f *flagSet) parse(args []string, minArgs, maxArgs int) error {
	head, tail := args, []string(nil)
	if i := slices.Index(args, "--"); i >= 0 {
		head, tail = args[:i], args[i+1:]
	}
	var pos []string
	for {
		// The flag package prints the whole usage on any error: only -h asks for it; a
		// mistake is one line (main prints it), with where to read more.
		var help strings.Builder
		f.SetOutput(&help)
		err := f.Parse(head)
		f.SetOutput(f.stderr)
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(f.stderr, help.String())
			return err
		}
		if err != nil {
			return exitf(ExitUsage, "%s: %v (%s -h for its flags)", strings.TrimPrefix(f.Name(), "kashi "), err, f.Name())
		}
		head = f.Args()
		if len(head) == 0 {
			break
		}
		pos, head = append(pos, head[0]), head[1:]
	}
	f.pos = append(pos, tail...)
	switch n := len(f.pos); {
	case n < minArgs:
		return exitf(ExitUsage, "%s: missing argument (usage: %s %s)", strings.TrimPrefix(f.Name(), "kashi "), f.Name(), f.args)
	case maxArgs >= 0 && n > maxArgs:
		return exitf(ExitUsage, "%s: unexpected argument %q (usage: %s %s)", strings.TrimPrefix(f.Name(), "kashi "), f.pos[maxArgs], f.Name(), f.args)
	}
	return nil
}
