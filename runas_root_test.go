package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"kashi/agent"
	"kashi/api"
	"kashi/models"
)

// TestTasksRunAsTheirOwners is the proof that tasks run as their owners, with a real `kashi
// agent` (the built binary) against a server on loopback, its GPUs read from a dcgm-exporter
// page: two Kashi users mapped to two Unix accounts made for the test submit tasks. Each
// task's `id -u` is its owner's; one owner's task cannot list or read the other's folder,
// log or files, nor the agent's records; a task that allocates more host memory than its
// limit (the pool's 1 GiB per GPU) is stopped by the kernel in its cgroup and ends failed
// saying so; a task whose owner has no Unix account fails to start saying so; a task of
// another account is stopped when cancelled. The agent runs with only the capabilities
// docs/agent.md lists (setpriv's bounding set). It needs root
// (accounts, setuid, cgroups) and is skipped otherwise; CI runs as root, so there it runs, on
// the cgroups the machine mounts (v1 or v2).
func TestTasksRunAsTheirOwners(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to make Unix accounts and cgroups and start tasks as other accounts; CI runs it as root")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	kashi := buildKashi(t)
	alice, bob := unixAccount(t, "a"), unixAccount(t, "b")

	dir := t.TempDir()
	db := filepath.Join(dir, "kashi.db")
	store, err := models.Open(ctx, db, models.Options{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	p, err := store.EnsureProject(ctx, "vision", now)
	if err != nil {
		t.Fatal(err)
	}
	tokens := map[string]string{}
	for kashiUser, account := range map[string]string{"alice": alice.Username, "bob": bob.Username, "carol": ""} {
		u, err := store.CreateUser(ctx, kashiUser, "password-"+kashiUser, models.RoleUser, now)
		if err != nil {
			t.Fatal(err)
		}
		if err := store.SetMember(ctx, p.ID, u.ID, models.ProjectRoleMember); err != nil {
			t.Fatal(err)
		}
		if err := store.SetUnixAccount(ctx, "test", kashiUser, account, now); err != nil {
			t.Fatal(err)
		}
		if tokens[kashiUser], _, err = store.CreateAPIToken(ctx, u.ID, "test", models.ScopeWrite, now); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := store.SavePoolConfig(ctx, "runas", models.PoolConfig{Provider: "static", Spec: "A100-79G", GPUsPerNode: 4,
		TaskMemoryPerGPUGiB: 1, TaskCPUsPerGPU: 1}, "test", "", now); err != nil {
		t.Fatal(err)
	}
	store.Close()

	addr := freeAddr(t)
	server := "http://" + addr
	sc, err := parseServe([]string{"--addr", addr, "--db", db, "--join-token", "kj_runas", "--log-level", "error", "--tick", "200ms"},
		func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	srvCtx, stopServer := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- serve(srvCtx, sc, newLogger(io.Discard, "error")) }()
	t.Cleanup(func() { stopServer(); <-served })

	page, err := os.ReadFile("agent/testdata/dcgm-exporter.txt")
	if err != nil {
		t.Fatal(err)
	}
	exporter := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write(page) }))
	t.Cleanup(exporter.Close)

	// The state directory's parents must let the accounts pass, as /var/lib does.
	state, err := os.MkdirTemp("", "kashi-runas-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(state) })
	parent := "kashi-test-" + randomHex(4)
	t.Cleanup(func() { removeCgroupParent(parent) })
	var agentLog bytes.Buffer
	// The agent keeps only the capabilities docs/agent.md says it needs.
	ag := exec.Command("setpriv", "--bounding-set", "-all,+setuid,+setgid,+chown,+kill,+dac_override", kashi, "agent", "--server", server, "--join-token", "kj_runas", "--pool", "runas", "--hostname", "runas-1",
		"--source", "dcgm", "--dcgm-url", exporter.URL, "--state-dir", state, "--cgroup-parent", parent,
		"--sample-interval", "200ms", "--poll-interval", "200ms", "--stop-grace", "1s", "--log-level", "info")
	ag.Stdout, ag.Stderr = &agentLog, &agentLog
	if err := ag.Start(); err != nil {
		t.Fatal(err)
	}
	agentDone := make(chan struct{})
	go func() { ag.Wait(); close(agentDone) }()
	t.Cleanup(func() {
		ag.Process.Signal(syscall.SIGTERM)
		<-agentDone
		if t.Failed() {
			t.Logf("agent log:\n%s", agentLog.String())
		}
	})

	c := runAsClient{t: t, ctx: ctx, server: server, tokens: tokens}
	c.waitForNode(agentDone)
	// alice's task keeps a note in its own folder (where KASHI_OUTPUT_FILE is).
	first := c.submit("alice", "notes", `id -u; echo "the plan" > "$(dirname "$KASHI_OUTPUT_FILE")/notes"`)
	if st := c.wait(first); st.State != "succeeded" {
		t.Fatalf("alice's task = %s (%s), want succeeded", st.State, st.Reason)
	}
	// bob's task tries alice's folder, log and note, the agent's records of her task, and
	// the list of every task's folder.
	var probe strings.Builder
	probe.WriteString("id -u\n")
	for _, path := range []string{
		filepath.Join(state, "runs", first), filepath.Join(state, "runs", first, agent.LogFile), filepath.Join(state, "runs", first, "notes"),
		filepath.Join(state, "tasks", first, "spec.json"), filepath.Join(state, "tasks"), filepath.Join(state, "runs"), state,
	} {
		fmt.Fprintf(&probe, "if cat %[1]q >/dev/null 2>&1 || ls %[1]q >/dev/null 2>&1; then echo read %[1]s; else echo denied %[1]s; fi\n", path)
	}
	second := c.submit("bob", "probe", probe.String())
	hog := c.submit("alice", "hog", "dd if=/dev/zero of=/dev/null bs=1536M count=1")
	none := c.submit("carol", "no-account", "id -u")

	if st := c.wait(second); st.State != "succeeded" {
		t.Errorf("bob's task = %s (%s), want succeeded", st.State, st.Reason)
	}
	for id, account := range map[string]*user.User{first: alice, second: bob} {
		if log := c.log(id); !strings.HasPrefix(log, account.Uid+"\n") {
			t.Errorf("task %s printed %q first, want `id -u` of its owner's account %s: %s", id, log, account.Username, account.Uid)
		}
	}
	log := c.log(second)
	if strings.Contains(log, "read ") || strings.Count(log, "denied ") != 7 {
		t.Errorf("bob's task reached into alice's task or the agent's records:\n%s", log)
	}
	if st := c.wait(hog); st.State != "failed" || st.Reason != "stopped: used more host memory than its limit of 1,024 MiB" {
		t.Errorf("the task over its memory = %s (%q), want failed: its limit of 1 GiB", st.State, st.Reason)
	}
	if st := c.wait(none); st.State != "failed" || !strings.HasPrefix(st.Reason, "failed to start: its owner has no Unix account") {
		t.Errorf("carol's task = %s (%q), want failed to start: no account", st.State, st.Reason)
	}
	// The agent stops a task of another account (a cancel), as it would at its runtime limit.
	long := c.submit("bob", "long", "sleep 600")
	for st := c.get(long); st.State != "running"; st = c.get(long) {
		select { // until the test's deadline, as wait
		case <-c.ctx.Done():
			t.Fatalf("bob's long task still %s: %v", st.State, c.ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
	c.do("bob", http.MethodPost, "/api/v1/tasks/"+long+"/cancel", "", nil)
	if st := c.wait(long); st.State != "cancelled" {
		t.Errorf("bob's cancelled task = %s (%q), want cancelled", st.State, st.Reason)
	}
}

// runAsClient calls the API of the proof's server as its users.
type runAsClient struct {
	t      *testing.T
	ctx    context.Context
	server string
	tokens map[string]string
}

// do sends a request as user and decodes a JSON answer into out, or returns the body.
func (c runAsClient) do(user, method, path, body string, out any) string {
	c.t.Helper()
	req, _ := http.NewRequestWithContext(c.ctx, method, c.server+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+c.tokens[user])
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		c.t.Fatalf("%s %s = %d %s", method, path, resp.StatusCode, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			c.t.Fatal(err)
		}
	}
	return string(b)
}

// waitForNode waits until the server answers and the agent's node shows its GPUs; it fails
// at once when the agent exits (agentDone closes).
func (c runAsClient) waitForNode(agentDone <-chan struct{}) {
	c.t.Helper()
	for {
		req, _ := http.NewRequestWithContext(c.ctx, http.MethodGet, c.server+"/api/v1/gpus", nil)
		req.Header.Set("Authorization", "Bearer "+c.tokens["alice"])
		if resp, err := http.DefaultClient.Do(req); err == nil {
			var gpus []api.GPU
			json.NewDecoder(resp.Body).Decode(&gpus)
			resp.Body.Close()
			if len(gpus) == 4 {
				return
			}
		}
		select {
		case <-c.ctx.Done():
			c.t.Fatalf("the agent's node never showed its GPUs: %v", c.ctx.Err())
		case <-agentDone:
			c.t.Fatal("the agent exited")
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// submit submits a one-GPU task of user running script in sh and returns its id.
func (c runAsClient) submit(user, name, script string) string {
	c.t.Helper()
	body, _ := json.Marshal(map[string]any{"project": "vision", "name": name, "gpus": 1, "command": []string{"/bin/sh", "-c", script},
		"max_runtime_s": 600, "data_ready": true})
	var task api.Task
	c.do(user, http.MethodPost, "/api/v1/tasks", string(body), &task)
	return strconv.FormatInt(task.ID, 10)
}

// get reads the task.
func (c runAsClient) get(id string) api.Task {
	c.t.Helper()
	var task api.Task
	c.do("alice", http.MethodGet, "/api/v1/tasks/"+id, "", &task)
	return task
}

// wait polls the task until it has ended.
func (c runAsClient) wait(id string) api.Task {
	c.t.Helper()
	for {
		task := c.get(id)
		switch task.State {
		case "succeeded", "failed", "cancelled", "timed-out", "reclaimed":
			return task
		}
		select {
		case <-c.ctx.Done():
			c.t.Fatalf("task %s still %s: %v", id, task.State, c.ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// log is the task's log as the server has it.
func (c runAsClient) log(id string) string {
	c.t.Helper()
	return c.do("alice", http.MethodGet, "/api/v1/tasks/"+id+"/log", "", nil)
}

// buildKashi builds the kashi binary into the test's temporary folder.
func buildKashi(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "kashi")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// unixAccount makes a Unix account of its own group for the test (useradd), removed after it.
func unixAccount(t *testing.T, suffix string) *user.User {
	t.Helper()
	name := "kt" + randomHex(4) + suffix
	if out, err := exec.Command("useradd", "--no-create-home", "--user-group", "--shell", "/usr/sbin/nologin", name).CombinedOutput(); err != nil {
		t.Fatalf("useradd %s: %v %s", name, err, out)
	}
	t.Cleanup(func() { exec.Command("userdel", name).Run() })
	u, err := user.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// randomHex is n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// removeCgroupParent removes the parent cgroup the test's agent made, in each hierarchy,
// killing what a failed test left running in its tasks' groups.
func removeCgroupParent(parent string) {
	mi, _ := os.ReadFile("/proc/self/mountinfo")
	self, _ := os.ReadFile("/proc/self/cgroup")
	cg, err := agent.FindCgroups(string(mi), string(self), parent)
	if err != nil {
		return
	}
	for _, root := range []string{cg.Unified, cg.Memory, cg.CPU} {
		if root == "" {
			continue
		}
		groups, _ := filepath.Glob(filepath.Join(root, parent, "task-*"))
		for _, g := range groups {
			b, _ := os.ReadFile(filepath.Join(g, "cgroup.procs"))
			for _, f := range strings.Fields(string(b)) {
				if pid, err := strconv.Atoi(f); err == nil {
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}
			for range 50 {
				if syscall.Rmdir(g) == nil {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
		syscall.Rmdir(filepath.Join(root, parent))
	}
}
