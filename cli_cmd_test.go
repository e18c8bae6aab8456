package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"kashi/agent"
	"kashi/agent/simgpu"
	"kashi/cli"
	"kashi/models"
)

// TestMain lets the test binary be the task supervisor the agent starts ("agent supervise
// DIR"), as the real binary is.
func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == "agent" && os.Args[2] == "supervise" {
		if err := runSupervise(os.Args[3:]); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// cliServer is a server on loopback with one agent of two simulated GPUs that runs real
// processes, and API tokens of two members of the project "vision".
type cliServer struct {
	url, alice, bob string
	config          string
}

// startCLIServer starts `kashi serve` and an in-process agent, and waits for the node.
func startCLIServer(t *testing.T) *cliServer {
	t.Helper()
	dir := t.TempDir()
	db := filepath.Join(dir, "kashi.db")
	ctx := t.Context()
	store, err := models.Open(ctx, db, models.Options{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	p, err := store.EnsureProject(ctx, "vision", now)
	if err != nil {
		t.Fatal(err)
	}
	s := &cliServer{config: filepath.Join(dir, "config")}
	for _, name := range []string{"alice", "bob"} {
		u, err := store.CreateUser(ctx, name, "password-"+name, models.RoleUser, now)
		if err != nil {
			t.Fatal(err)
		}
		if err := store.SetMember(ctx, p.ID, u.ID, models.ProjectRoleMember); err != nil {
			t.Fatal(err)
		}
		token, _, err := store.CreateAPIToken(ctx, u.ID, "cli", models.ScopeWrite, now)
		if err != nil {
			t.Fatal(err)
		}
		if name == "alice" {
			s.alice = token
		} else {
			s.bob = token
		}
	}
	// The tasks run as the test's own user: the pool lets tasks of owners without a Unix
	// account run as the agent's.
	if _, err := store.SavePoolConfig(ctx, "a100", models.PoolConfig{Provider: "static", Spec: "A100-80G", GPUsPerNode: 2, AllowRoot: true},
		"test", "", now); err != nil {
		t.Fatal(err)
	}
	store.Close()

	addr := freeAddr(t)
	s.url = "http://" + addr
	sc, err := parseServe([]string{"--addr", addr, "--db", db, "--join-token", "kj_cli-test", "--log-level", "error",
		"--tick", "200ms"}, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	srvCtx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve(srvCtx, sc, newLogger(io.Discard, "error")) }()
	backend := simgpu.New(simgpu.A100_80G, 2, time.Now, 1)
	a := agent.New(agent.Config{Server: s.url, JoinToken: "kj_cli-test", Pool: "a100", Hostname: "node-1",
		SampleInterval: 100 * time.Millisecond, PollInterval: 100 * time.Millisecond, StopGrace: time.Second,
		StateDir: filepath.Join(dir, "agent"), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))},
		backend, agent.SupervisedRunner{StateDir: filepath.Join(dir, "agent"), Supervisor: []string{os.Args[0], "agent", "supervise"}, Grace: time.Second})
	agentDone := make(chan error, 1)
	go func() { agentDone <- a.Run(srvCtx) }()
	t.Cleanup(func() { stop(); <-agentDone; <-done })

	deadline := time.Now().Add(30 * time.Second)
	for {
		out, _, err := s.kashi(t, s.alice, "gpus")
		if err == nil && strings.Contains(out, "A100-80G") {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("the node never showed in kashi gpus: %q, %v", out, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// kashi runs a CLI verb as the holder of token and returns its output and error.
func (s *cliServer) kashi(t *testing.T, token string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	env := map[string]string{"KASHI_SERVER": s.url, "KASHI_TOKEN": token, "KASHI_CONFIG_DIR": s.config}
	var o, e bytes.Buffer
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	err = run(ctx, args, func(k string) string { return env[k] }, &o, &e)
	return o.String(), e.String(), err
}

// must runs a CLI verb that must succeed.
func (s *cliServer) must(t *testing.T, token string, args ...string) string {
	t.Helper()
	out, errOut, err := s.kashi(t, token, args...)
	if err != nil {
		t.Fatalf("kashi %s: %v (stderr %q)", strings.Join(args, " "), err, errOut)
	}
	return out
}

// TestCLISubmitWaitLogsShow submits a real process through the CLI, waits for it, and reads
// its exit code, log, listing and details back.
func TestCLISubmitWaitLogsShow(t *testing.T) {
	s := startCLIServer(t)
	out, errOut, err := s.kashi(t, s.alice, "submit", "-p", "vision", "--gpus", "1", "--name", "hello", "--max-runtime", "10m",
		"--wait", "--", "sh", "-c", "echo hello from the task; sleep 1; exit 3")
	if got := exitCode(err); got != 3 {
		t.Fatalf("submit --wait exit code = %d (%v, stderr %q), want 3", got, err, errOut)
	}
	id := strings.TrimSpace(out)
	if _, err := strconv.ParseInt(id, 10, 64); err != nil {
		t.Fatalf("submit printed %q, want the task id", out)
	}
	if !strings.Contains(errOut, "task "+id+": failed") {
		t.Errorf("submit --wait told %q, want the failed state", errOut)
	}

	// The log's last piece may reach the server just after the exit report.
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(s.must(t, s.alice, "logs", id), "hello from the task") {
		if time.Now().After(deadline) {
			t.Fatalf("kashi logs %s never showed the task's output", id)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if out := s.must(t, s.alice, "logs", "-f", id); !strings.Contains(out, "hello from the task") {
		t.Errorf("kashi logs -f of an ended task = %q, want its log, then the end", out)
	}

	tasks := s.must(t, s.alice, "tasks")
	if !strings.Contains(tasks, id) || !strings.Contains(tasks, "failed") {
		t.Errorf("kashi tasks = %q, want task %s failed", tasks, id)
	}
	if out := s.must(t, s.bob, "tasks"); strings.Contains(out, "hello") {
		t.Errorf("kashi tasks as bob = %q, want only bob's tasks", out)
	}
	if out := s.must(t, s.bob, "tasks", "-a", "-o", "wide"); !strings.Contains(out, "hello") || !strings.Contains(out, "sh -c") {
		t.Errorf("kashi tasks -a -o wide as bob = %q, want alice's task with its command", out)
	}
	show := s.must(t, s.alice, "show", id)
	for _, want := range []string{"Task " + id + "  hello", "Exit code: 3", "Events:", "running"} {
		if !strings.Contains(show, want) {
			t.Errorf("kashi show = %q, want %q in it", show, want)
		}
	}
}

// TestCLIReadyQueueCancel walks a task that waits for its data: ready, queued or running,
// then cancelled, with the queue and the fleet views in between.
func TestCLIReadyQueueCancel(t *testing.T) {
	s := startCLIServer(t)
	first := strings.TrimSpace(s.must(t, s.alice, "submit", "-p", "vision", "--gpus", "2", "--", "sleep", "60"))
	deadline := time.Now().Add(30 * time.Second)
	// Both GPUs held: none free and none stale (a node that has not yet reported shows its
	// GPUs stale, not free).
	held := regexp.MustCompile(`node-1\s+a100\s+A100-80G\s+2\s+0\s+\d+\s+\d+\s+0\n`)
	for !held.MatchString(s.must(t, s.alice, "gpus")) {
		if time.Now().After(deadline) {
			t.Fatalf("kashi gpus never showed both GPUs held: %q", s.must(t, s.alice, "gpus"))
		}
		time.Sleep(100 * time.Millisecond)
	}
	// A second task waits for its data, then for the GPUs the first one holds.
	id := strings.TrimSpace(s.must(t, s.alice, "submit", "-p", "vision", "--gpus", "2", "--data-ready=false", "--", "sleep", "60"))
	if out := s.must(t, s.alice, "show", id); !strings.Contains(out, "waiting-data") {
		t.Errorf("kashi show of a task without data = %q, want waiting-data", out)
	}
	if out := s.must(t, s.alice, "ready", id); out != id+" queued\n" {
		t.Errorf("kashi ready = %q, want %q", out, id+" queued\n")
	}
	if out := s.must(t, s.alice, "queue"); !strings.Contains(out, id) || !strings.Contains(out, "A100-80G  2      2     0") {
		t.Errorf("kashi queue = %q, want task %s waiting and no free GPU", out, id)
	}
	for out := ""; !strings.Contains(out, "Queue:     position 1 in the long lane"); out = s.must(t, s.alice, "show", id) {
		if time.Now().After(deadline) {
			t.Fatalf("kashi show of a waiting task = %q, want its place in the queue", out)
		}
		time.Sleep(100 * time.Millisecond)
	}
	out := s.must(t, s.alice, "cancel", id, first)
	if !strings.Contains(out, id+" cancelled") || !strings.Contains(out, first+" ") {
		t.Errorf("kashi cancel = %q, want both tasks answered", out)
	}
}

// TestCLIErrors checks the exit codes and messages scripts rely on.
func TestCLIErrors(t *testing.T) {
	s := startCLIServer(t)
	tests := map[string]struct {
		token string
		args  []string
		code  int
		msg   string
	}{
		"unknown task":     {s.alice, []string{"show", "999999"}, cli.ExitNotFound, "not found"},
		"bad id":           {s.alice, []string{"cancel", "x1"}, cli.ExitUsage, `"x1" is not a task id`},
		"bad token":        {"ka_nope", []string{"tasks"}, cli.ExitAuth, "HTTP 401"},
		"no project":       {s.alice, []string{"submit", "--gpus", "1", "--", "true"}, cli.ExitUsage, "--project is required"},
		"refused field":    {s.alice, []string{"submit", "-p", "vision", "--gpus", "1", "--queue", "medium", "--", "true"}, cli.ExitFailed, "queue"},
		"bad month":        {s.alice, []string{"bill", "vision", "2026-13"}, cli.ExitUsage, "yyyy-mm"},
		"lines of xlsx":    {s.alice, []string{"bill", "vision", "2026-01", "--format", "xlsx", "--lines", "-o", "x.xlsx"}, cli.ExitUsage, "--lines"},
		"unknown flag":     {s.alice, []string{"tasks", "--bogus"}, cli.ExitUsage, "bogus"},
		"missing argument": {s.alice, []string{"logs"}, cli.ExitUsage, "missing argument"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, _, err := s.kashi(t, tc.token, tc.args...)
			if err == nil || exitCode(err) != tc.code || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("kashi %v = %v (code %d), want code %d and %q", tc.args, err, exitCode(err), tc.code, tc.msg)
			}
		})
	}
}

// TestCLIBillAndLogin logs in through standard input, then downloads a bill that must be
// byte-identical to the API's.
func TestCLIBillAndLogin(t *testing.T) {
	s := startCLIServer(t)
	env := map[string]string{"KASHI_CONFIG_DIR": s.config}
	getenv := func(k string) string { return env[k] }
	var out bytes.Buffer
	err := cli.Run(t.Context(), []string{"login", "--server", s.url}, cli.Env{Getenv: getenv,
		Stdin: strings.NewReader(s.alice + "\n"), Stdout: &out, Stderr: io.Discard})
	if err != nil || !strings.Contains(out.String(), "as alice") {
		t.Fatalf("kashi login = %q, %v", out.String(), err)
	}
	month := time.Now().In(time.FixedZone("CST", 8*3600)).Format("2006-01")
	for _, format := range []string{"csv", "json", "xlsx", "csv --lines"} {
		file := filepath.Join(t.TempDir(), "bill."+format)
		out.Reset()
		// The month is running, so its bill is as of the second it is read: the CLI's read
		// lies between two of the API's, and equals the one in the same second.
		url := s.url + "/api/v1/bills/vision/" + month + "?format=" + strings.Replace(format, " --lines", "&rows=lines", 1)
		before := apiGet(t, url, s.alice)
		err := cli.Run(t.Context(), append([]string{"bill", "vision", month, "-o", file, "--format"}, strings.Fields(format)...),
			cli.Env{Getenv: getenv, Stdout: &out, Stderr: io.Discard})
		if err != nil {
			t.Fatalf("kashi bill --format %s: %v", format, err)
		}
		got, _ := os.ReadFile(file)
		want := apiGet(t, url, s.alice)
		if !bytes.Equal(got, want) && !bytes.Equal(got, before) {
			t.Errorf("kashi bill --format %s wrote %d bytes, the API serves %d: not the same", format, len(got), len(want))
		}
	}
}

// apiGet fetches url with a bearer token.
func apiGet(t *testing.T, url, token string) []byte {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s = %d %s", url, resp.StatusCode, b)
	}
	return b
}
