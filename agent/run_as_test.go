package agent

import (
	"context"
	"errors"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/api"
)

// needRoot skips a test that starts tasks as other accounts or makes cgroups, which only
// root may: CI runs as root, so there it always runs.
func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("runs only as root (CI runs as root): starting a task as another account and making cgroups need it")
	}
}

// rootStateDir is a state directory under the world-passable temporary folder, as the
// accounts tasks run as must pass through its parents; t.TempDir's parent is root's alone.
func rootStateDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "kashi-state-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// TestRunAsRefused: a task whose account the node lacks, a task of an owner without one, and
// a task that would run as root fail to start with a *StartRefused naming the cause, before
// anything is made for them; a pool that allows root runs them as an account of uid 0 or as
// the agent's own user.
func TestRunAsRefused(t *testing.T) {
	tests := map[string]struct {
		a    api.Assignment
		want *StartRefused
	}{
		"no such account":   {api.Assignment{RunAsUser: "kashi-no-such-user"}, &StartRefused{Cause: api.CauseNoAccount, Account: "kashi-no-such-user"}},
		"owner has none":    {api.Assignment{}, &StartRefused{Cause: api.CauseNoAccount}},
		"root":              {api.Assignment{RunAsUser: "root"}, &StartRefused{Cause: api.CauseRootRefused, Account: "root"}},
		"root allowed":      {api.Assignment{RunAsUser: "root", AllowRoot: true}, nil},
		"agent's own user":  {api.Assignment{AllowRoot: true}, nil},
		"unknown, allowed?": {api.Assignment{RunAsUser: "kashi-no-such-user", AllowRoot: true}, &StartRefused{Cause: api.CauseNoAccount, Account: "kashi-no-such-user"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			tc.a.TaskID, tc.a.Command = 3, []string{"/bin/true"}
			r := SupervisedRunner{StateDir: t.TempDir(), Supervisor: testSupervisor(), Grace: time.Second}
			p, err := r.Start(context.Background(), tc.a)
			if err == nil {
				p.Wait()
			}
			got, _ := errors.AsType[*StartRefused](err)
			if diff := cmp.Diff(tc.want, got); diff != "" || (tc.want == nil) != (err == nil) {
				t.Errorf("Start() = %v, refusal (-want +got):\n%s", err, diff)
			}
			if tc.want != nil && exists(taskDir(r.StateDir, 3), specFile) {
				t.Error("a refused task has a spec: it would never start")
			}
		})
	}
}

// TestRefusedStartReported: the agent reports a refused start failed to start with its cause
// and the account it looked for, which the server writes into the task's reason.
func TestRefusedStartReported(t *testing.T) {
	f := newFakeServer(t)
	f.with(func() {
		f.assignments = []api.Assignment{{TaskID: 6, GPUUUIDs: []string{"GPU-x"}, RunAsUser: "kashi-no-such-user", Command: []string{"/bin/true"}}}
	})
	stateDir := t.TempDir()
	a := newTestAgent(t, f, SupervisedRunner{StateDir: stateDir, Supervisor: testSupervisor(), Grace: time.Second})
	a.cfg.StateDir = stateDir
	stop := runAgent(t, a)
	f.waitFor(t, "the failed start", func() bool { return len(f.statuses) > 0 })
	stop()
	f.with(func() {
		want := statusCall{TaskID: 6, State: api.TaskFailedToStart, Cause: api.CauseNoAccount, Account: "kashi-no-such-user",
			Message: "agent: start task 6: this node has no Unix account kashi-no-such-user"}
		if diff := cmp.Diff(want, f.statuses[0]); diff != "" {
			t.Errorf("status (-want +got):\n%s", diff)
		}
	})
}

// TestRunsAsItsAccount: a task runs with its account's uid, gid and groups, HOME and USER,
// without the agent's join token; its own folder and log are the account's (0700, 0600),
// the agent's records of it root's alone (0700), and the state directory lists nothing to
// others (0711).
func TestRunsAsItsAccount(t *testing.T) {
	needRoot(t)
	nobody, err := user.Lookup("nobody")
	if err != nil {
		t.Skipf("no account nobody: %v", err)
	}
	t.Setenv(agentSecretEnv, "kj_secret")
	r := SupervisedRunner{StateDir: rootStateDir(t), Supervisor: testSupervisor(), Grace: time.Second}
	p, err := r.Start(context.Background(), api.Assignment{TaskID: 5, RunAsUser: "nobody", Command: []string{"/bin/sh", "-c",
		`set -e; id -u; id -g; echo "$HOME $USER"; echo "token=$KASHI_JOIN_TOKEN"; echo "KASHI_OUTPUT 3 steps" > "$KASHI_OUTPUT_FILE"`}})
	if err != nil {
		t.Fatal(err)
	}
	if code, err := p.Wait(); code != 0 || err != nil {
		log, _ := os.ReadFile(filepath.Join(runDir(r.StateDir, 5), LogFile))
		t.Fatalf("Wait() = %d, %v; log %q", code, err, log)
	}
	log, _ := os.ReadFile(filepath.Join(runDir(r.StateDir, 5), LogFile))
	want := nobody.Uid + "\n" + nobody.Gid + "\n" + nobody.HomeDir + " nobody\ntoken=\n"
	if string(log) != want {
		t.Errorf("the task printed %q, want %q", log, want)
	}
	uid, _ := strconv.Atoi(nobody.Uid)
	for path, want := range map[string]struct {
		uid  int
		mode os.FileMode
	}{
		r.StateDir:                                      {0, os.ModeDir | 0o711},
		filepath.Join(r.StateDir, "runs"):               {0, os.ModeDir | 0o711},
		filepath.Join(r.StateDir, "tasks"):              {0, os.ModeDir | 0o700},
		taskDir(r.StateDir, 5):                          {0, os.ModeDir | 0o700},
		filepath.Join(taskDir(r.StateDir, 5), specFile): {0, 0o600},
		runDir(r.StateDir, 5):                           {uid, os.ModeDir | 0o700},
		filepath.Join(runDir(r.StateDir, 5), LogFile):   {uid, 0o600},
	} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := int(fi.Sys().(*syscall.Stat_t).Uid); got != want.uid || fi.Mode() != want.mode {
			t.Errorf("%s: uid %d mode %v, want uid %d mode %v", path, got, fi.Mode(), want.uid, want.mode)
		}
	}
}

// TestTaskFilesOpenedPlain: the agent, root, reads a task's log and output file only as plain
// files of the task's: a log the task replaced with a link to another file, or a FIFO as its
// output file, is not read (nor waited on).
func TestTaskFilesOpenedPlain(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret")
	os.WriteFile(secret, []byte("KASHI_OUTPUT 7 secrets\nthe root password\n"), 0o600)
	log, out := filepath.Join(dir, "output.log"), filepath.Join(dir, "output")
	if err := os.Symlink(secret, log); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(out, 0o600); err != nil {
		t.Fatal(err)
	}
	tr := &outputTracker{logPath: log, filePath: out}
	done := make(chan bool)
	go func() { done <- tr.poll(time.Now()) }()
	select {
	case changed := <-done:
		if _, ok := tr.takeLog(1); changed || ok {
			t.Errorf("poll() through a link = changed %v, log %v; want nothing read", changed, ok)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("poll() blocked on a FIFO")
	}
	os.Remove(log)
	if err := os.Link(secret, log); err != nil {
		t.Fatal(err)
	}
	if _, err := openTaskFile(log, os.O_RDONLY); err == nil || !strings.Contains(err.Error(), "not a plain file") {
		t.Errorf("openTaskFile of a hard link = %v, want refused", err)
	}
}

// TestLimitsShareTheNode: a task whose pool sets no limit gets the node's share of memory
// and CPUs by its GPUs; the pool's limits stand as sent.
func TestLimitsShareTheNode(t *testing.T) {
	a := &Agent{cfg: Config{HostMemoryMiB: 512 << 10, HostCPUs: 96},
		registration: api.RegisterRequest{GPUs: make([]api.GPUInfo, 8)}}
	two := []string{"GPU-a", "GPU-b"}
	for name, tc := range map[string]struct {
		as        api.Assignment
		mem, cpus int64
	}{
		"share":     {api.Assignment{GPUUUIDs: two}, 128 << 10, 24000},
		"pool sets": {api.Assignment{GPUUUIDs: two, MemoryLimitMiB: 1024, CPULimitMillis: 2000}, 1024, 2000},
		"no GPUs":   {api.Assignment{}, 0, 0},
	} {
		if mem, cpus := a.limits(tc.as); mem != tc.mem || cpus != tc.cpus {
			t.Errorf("%s: limits = %d MiB, %d millis; want %d, %d", name, mem, cpus, tc.mem, tc.cpus)
		}
	}
}

// TestLimitsOnEveryStart: a task whose pool sets no limits starts with the node's share, and
// so does a service replica started again after it exited.
func TestLimitsOnEveryStart(t *testing.T) {
	f := newFakeServer(t)
	r := &fakeRunner{}
	f.with(func() {
		f.assignments = []api.Assignment{{TaskID: 7, GPUUUIDs: []string{"GPU-x"}, Command: []string{"serve"}, Restart: true, MetricsPort: 1}}
	})
	a := newTestAgent(t, f, r)
	a.cfg.HostMemoryMiB, a.cfg.HostCPUs, a.cfg.RestartBackoff = 1000, 8, time.Millisecond
	runAgent(t, a)
	f.waitFor(t, "running report", func() bool { return len(f.statuses) == 1 })
	r.proc(7).exit(1)
	f.waitFor(t, "the replica started again", func() bool { return r.startCount() == 2 })
	r.mu.Lock()
	defer r.mu.Unlock()
	if want := [][2]int64{{500, 4000}, {500, 4000}}; !slices.Equal(r.limits, want) {
		t.Errorf("starts' limits = %v, want the node's share of one of its two GPUs, %v", r.limits, want)
	}
}
