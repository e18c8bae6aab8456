// Package exec is a fleet.Provider that runs the admin's scripts, one per verb, in the way
// Slurm's power-saving scripts work: each call runs a script with a JSON request on stdin and
// reads a JSON answer from stdout. Exit status 0 is success, ExitNotFound means no such
// machine and ExitCapacity means out of stock; any other status is an error that carries the
// end of the script's stderr. Scripts are killed (their whole process group) at the timeout.
//
// Requests and answers, by verb:
//
//	create   stdin {"pool","flavor","image","idempotency_key","tags"}   stdout a machine
//	list     stdin {"pool"}                                              stdout [machine, …]
//	get      stdin {"id"}                                                stdout a machine
//	delete   stdin {"id"}                                                stdout ignored
//	flavors  stdin {}                                                    stdout [flavor, …]
//
// A machine is {"id","pool","idempotency_key","state","flavor","tags","created_at"}; a flavor
// is {"name","gpus","gpu_model","memory_mib"}. A create script must be safe to run again with
// the same key after being killed at any point: it looks for a machine carrying the key
// before it asks for a new one.
package exec

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	osexec "os/exec"
	"strings"
	"time"

	"kashi/fleet"
)

// Exit statuses a script uses to answer other than success.
const (
	// ExitNotFound: get or delete found no such machine (delete then counts as done).
	ExitNotFound = 3
	// ExitCapacity: create found the provider out of stock; nothing was created.
	ExitCapacity = 4
)

// Verbs, also passed to each script in KASHI_FLEET_VERB.
const (
	VerbCreate  = "create"
	VerbList    = "list"
	VerbGet     = "get"
	VerbDelete  = "delete"
	VerbFlavors = "flavors"
)

// DefaultTimeout bounds one script run when Config.Timeout is zero.
const DefaultTimeout = 2 * time.Minute

// maxStdout bounds what a script may print; maxStderr is how much of its stderr an error
// keeps (the end, where the cause usually is).
const (
	maxStdout = 8 << 20
	maxStderr = 1024
)

// Config names the script of each verb as an argv list. A verb without its own argv runs
// Script with the verb as its one argument (one script for all verbs), if Script is set.
type Config struct {
	Create, List, Get, Delete, Flavors []string
	Script                             string
	// Timeout bounds each run; zero means DefaultTimeout.
	Timeout time.Duration
	// Env is added to the server's environment for every run ("NAME=value").
	Env []string
	// Dir is the scripts' working directory; empty means the server's.
	Dir string
}

// Provider runs the configured scripts.
type Provider struct {
	cfg Config
}

// New checks that every verb has a script and returns the provider.
func New(cfg Config) (*Provider, error) {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	p := &Provider{cfg: cfg}
	for _, v := range []string{VerbCreate, VerbList, VerbGet, VerbDelete, VerbFlavors} {
		if len(p.argv(v)) == 0 {
			return nil, fmt.Errorf("exec: no script for %s", v)
		}
	}
	return p, nil
}

// ScriptError is a script that failed: its verb, exit status (-1 when it did not exit, as on
// a timeout) and the end of its stderr.
type ScriptError struct {
	Verb     string
	ExitCode int
	Stderr   string
	Err      error
}

func (e *ScriptError) Error() string {
	msg := fmt.Sprintf("exec: %s script", e.Verb)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	if e.ExitCode >= 0 {
		msg += fmt.Sprintf(": exit status %d", e.ExitCode)
	}
	if e.Stderr != "" {
		msg += ": " + e.Stderr
	}
	return msg
}

// Unwrap gives fleet.ErrNotFound or fleet.ErrCapacity for their exit statuses, else the
// underlying error (such as context.DeadlineExceeded).
func (e *ScriptError) Unwrap() error {
	switch e.ExitCode {
	case ExitNotFound:
		return fleet.ErrNotFound
	case ExitCapacity:
		return fleet.ErrCapacity
	}
	return e.Err
}

// Create implements fleet.Provider.
func (p *Provider) Create(ctx context.Context, req fleet.CreateRequest) (fleet.Machine, error) {
	if err := req.Validate(); err != nil {
		return fleet.Machine{}, err
	}
	var m fleet.Machine
	if err := p.run(ctx, VerbCreate, req, &m); err != nil {
		return fleet.Machine{}, err
	}
	if m.ID == "" {
		return fleet.Machine{}, fmt.Errorf("exec: create script answered no id")
	}
	if m.IdempotencyKey != "" && m.IdempotencyKey != req.IdempotencyKey {
		return fleet.Machine{}, fmt.Errorf("exec: create script answered machine %s of key %q, asked %q", m.ID, m.IdempotencyKey, req.IdempotencyKey)
	}
	if m.Pool == "" {
		m.Pool = req.Pool
	}
	if m.IdempotencyKey == "" {
		m.IdempotencyKey = req.IdempotencyKey
	}
	if m.Tags == nil {
		m.Tags = req.Tags
	}
	if m.State == "" {
		m.State = fleet.StateCreating
	}
	if err := checkState(VerbCreate, m); err != nil {
		return fleet.Machine{}, err
	}
	return m, nil
}

// List implements fleet.Provider.
func (p *Provider) List(ctx context.Context, pool string) ([]fleet.Machine, error) {
	var ms []fleet.Machine
	if err := p.run(ctx, VerbList, map[string]string{"pool": pool}, &ms); err != nil {
		return nil, err
	}
	out := ms[:0]
	for _, m := range ms {
		if m.ID == "" {
			return nil, fmt.Errorf("exec: list script answered a machine without id")
		}
		if m.Pool == pool || m.Tags[fleet.TagPool] == pool {
			if m.Pool == "" {
				m.Pool = pool
			}
			if m.IdempotencyKey == "" {
				m.IdempotencyKey = m.Tags[fleet.TagKey]
			}
			if err := checkState(VerbList, m); err != nil {
				return nil, err
			}
			out = append(out, m)
		}
	}
	return out, nil
}

// Get implements fleet.Provider.
func (p *Provider) Get(ctx context.Context, id string) (fleet.Machine, error) {
	var m fleet.Machine
	if err := p.run(ctx, VerbGet, map[string]string{"id": id}, &m); err != nil {
		return fleet.Machine{}, err
	}
	if m.ID == "" {
		return fleet.Machine{}, fmt.Errorf("exec: get script answered no id for %q", id)
	}
	if err := checkState(VerbGet, m); err != nil {
		return fleet.Machine{}, err
	}
	return m, nil
}

// Delete implements fleet.Provider; a script that finds no such machine (ExitNotFound) has
// nothing left to do.
func (p *Provider) Delete(ctx context.Context, id string) error {
	err := p.run(ctx, VerbDelete, map[string]string{"id": id}, nil)
	if errors.Is(err, fleet.ErrNotFound) {
		return nil
	}
	return err
}

// Flavors implements fleet.Provider.
func (p *Provider) Flavors(ctx context.Context) ([]fleet.Flavor, error) {
	var fs []fleet.Flavor
	if err := p.run(ctx, VerbFlavors, struct{}{}, &fs); err != nil {
		return nil, err
	}
	for _, f := range fs {
		if f.Name == "" || f.GPUs < 1 {
			return nil, fmt.Errorf("exec: flavors script answered flavor %q with gpus %d: want a name and gpus of 1 or more", clip(f.Name, 40), f.GPUs)
		}
	}
	return fs, nil
}

// checkState refuses a machine whose state the scaling loop does not know, naming it.
func checkState(verb string, m fleet.Machine) error {
	switch m.State {
	case fleet.StateCreating, fleet.StateRunning, fleet.StateDeleting, fleet.StateFailed:
		return nil
	}
	return fmt.Errorf("exec: %s script answered machine %s with state %q: want creating, running, deleting or failed",
		verb, clip(m.ID, 40), clip(m.State, 40))
}

// argv is the command line of verb.
func (p *Provider) argv(verb string) []string {
	var a []string
	switch verb {
	case VerbCreate:
		a = p.cfg.Create
	case VerbList:
		a = p.cfg.List
	case VerbGet:
		a = p.cfg.Get
	case VerbDelete:
		a = p.cfg.Delete
	case VerbFlavors:
		a = p.cfg.Flavors
	}
	if len(a) == 0 && p.cfg.Script != "" {
		a = []string{p.cfg.Script, verb}
	}
	return a
}

// run runs verb's script with in as JSON on stdin and decodes its stdout into out (unless
// out is nil).
func (p *Provider) run(ctx context.Context, verb string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("exec: %s request: %w", verb, err)
	}
	ctx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
	defer cancel()
	argv := p.argv(verb)
	cmd := osexec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = p.cfg.Dir
	cmd.Env = append(append(os.Environ(), p.cfg.Env...), "KASHI_FLEET_VERB="+verb)
	cmd.Stdin = bytes.NewReader(body)
	var stdout bytes.Buffer
	stderr := &tail{max: maxStderr}
	cmd.Stdout = &limited{w: &stdout, left: maxStdout}
	cmd.Stderr = stderr
	killGroup(cmd)
	cmd.WaitDelay = time.Second
	err = cmd.Run()
	if err != nil {
		se := &ScriptError{Verb: verb, ExitCode: -1, Stderr: stderr.String()}
		var ee *osexec.ExitError
		switch {
		case ctx.Err() != nil:
			se.Err = fmt.Errorf("killed after %s: %w", p.cfg.Timeout, ctx.Err())
		case errors.As(err, &ee) && ee.Exited():
			se.ExitCode = ee.ExitCode()
		default:
			se.Err = err
		}
		return se
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), out); err != nil {
		return &ScriptError{Verb: verb, ExitCode: -1, Stderr: stderr.String(),
			Err: fmt.Errorf("answer is not the expected JSON (%q): %w", clip(stdout.String(), 200), err)}
	}
	return nil
}

// tail keeps the last max bytes written to it.
type tail struct {
	max int
	buf []byte
	cut bool
}

func (t *tail) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.cut = true
	}
	return len(p), nil
}

func (t *tail) String() string {
	s := strings.TrimSpace(string(t.buf))
	if t.cut {
		s = "…" + s
	}
	return s
}

// limited fails writes past left bytes, which ends a runaway script.
type limited struct {
	w    io.Writer
	left int
}

func (l *limited) Write(p []byte) (int, error) {
	if len(p) > l.left {
		return 0, fmt.Errorf("exec: script printed more than %d bytes", maxStdout)
	}
	l.left -= len(p)
	return l.w.Write(p)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

var _ fleet.Provider = (*Provider)(nil)
