package agent

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"kashi/api"
)

// TestFindCgroups: the unified hierarchy when it holds the memory and cpu controllers, else
// the v1 hierarchies of those controllers (as on a node that mounts both, with the unified one
// empty); neither is an error, and so is a parent that leaves its hierarchy.
func TestFindCgroups(t *testing.T) {
	root := t.TempDir()
	full, empty := filepath.Join(root, "full"), filepath.Join(root, "empty")
	os.MkdirAll(full, 0o755)
	os.MkdirAll(empty, 0o755)
	os.WriteFile(filepath.Join(full, "cgroup.controllers"), []byte("cpuset cpu io memory pids\n"), 0o644)
	os.WriteFile(filepath.Join(empty, "cgroup.controllers"), []byte("\n"), 0o644)
	v1 := `32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime shared:1 - cgroup cgroup rw,cpu,cpuacct
33 31 0:30 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
`
	tests := map[string]struct {
		mountinfo string
		want      Cgroups
	}{
		"v2":     {"30 23 0:26 / " + full + " rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n", Cgroups{Parent: "kashi", Unified: full}},
		"hybrid": {v1 + "41 31 0:38 / " + empty + " rw,relatime - cgroup2 cgroup2 rw\n", Cgroups{Parent: "kashi", Memory: "/sys/fs/cgroup/memory", CPU: "/sys/fs/cgroup/cpu,cpuacct"}},
		"v1":     {v1, Cgroups{Parent: "kashi", Memory: "/sys/fs/cgroup/memory", CPU: "/sys/fs/cgroup/cpu,cpuacct"}},
	}
	for name, tc := range tests {
		got, err := FindCgroups(tc.mountinfo, "kashi")
		if err != nil || *got != tc.want {
			t.Errorf("%s: FindCgroups() = %+v, %v; want %+v", name, got, err, tc.want)
		}
	}
	if _, err := FindCgroups("30 23 0:26 / "+empty+" rw - cgroup2 cgroup2 rw\n", "kashi"); err == nil {
		t.Error("FindCgroups() without memory and cpu controllers: no error")
	}
	for _, bad := range []string{"", "/kashi", "../kashi", "kashi/../.."} {
		if _, err := FindCgroups(v1, bad); err == nil {
			t.Errorf("FindCgroups() with parent %q: no error", bad)
		}
	}
}

// TestCgroupV2Files: on cgroup v2 the parent lets its children use memory and cpu, and a
// task's group gets memory.max (swap none) and cpu.max from its limits; 0 leaves them "max".
func TestCgroupV2Files(t *testing.T) {
	root := t.TempDir()
	c := &Cgroups{Parent: "system.slice/kashi", Unified: root}
	if err := c.Prepare(); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(root, "system.slice/kashi/task-7"), 0o755)
	os.WriteFile(filepath.Join(root, "system.slice/kashi/task-7/memory.swap.max"), nil, 0o644)
	g, err := c.make(7, 2048, 1500)
	if err != nil {
		t.Fatal(err)
	}
	read := func(path string) string { b, _ := os.ReadFile(filepath.Join(root, path)); return string(b) }
	for path, want := range map[string]string{
		"cgroup.subtree_control":                    "+memory +cpu",
		"system.slice/cgroup.subtree_control":       "+memory +cpu",
		"system.slice/kashi/cgroup.subtree_control": "+memory +cpu",
		"system.slice/kashi/task-7/memory.max":      strconv.Itoa(2048 << 20),
		"system.slice/kashi/task-7/memory.swap.max": "0",
		"system.slice/kashi/task-7/cpu.max":         "150000 100000",
	} {
		if got := read(path); got != want {
			t.Errorf("%s = %q, want %q", path, got, want)
		}
	}
	if want := (&taskCgroup{V2: true, Memory: filepath.Join(root, "system.slice/kashi/task-7"), CPU: filepath.Join(root, "system.slice/kashi/task-7"),
		MemoryRoot: root, CPURoot: root, MemoryMiB: 2048}); *g != *want {
		t.Errorf("make() = %+v, want %+v", g, want)
	}
	os.WriteFile(filepath.Join(g.Memory, "memory.events"), []byte("low 0\nhigh 0\nmax 12\noom 2\noom_kill 1\n"), 0o644)
	if n := g.oomKills(); n != 1 {
		t.Errorf("oomKills() = %d, want 1 (memory.events' oom_kill)", n)
	}
	if _, err := c.make(8, 0, 0); err != nil || read("system.slice/kashi/task-8/memory.max") != "max" || read("system.slice/kashi/task-8/cpu.max") != "max 100000" {
		t.Errorf("make() without limits = %v: memory.max %q, cpu.max %q", err, read("system.slice/kashi/task-8/memory.max"), read("system.slice/kashi/task-8/cpu.max"))
	}
}

// hostCgroups finds this machine's cgroups for a test under a parent of its own, made and
// removed with the test; the test is skipped where the machine has none (not as root).
func hostCgroups(t *testing.T) *Cgroups {
	t.Helper()
	needRoot(t)
	mi, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	c, err := FindCgroups(string(mi), fmt.Sprintf("kashi-test-%d", rand.Int64()))
	if err != nil {
		t.Fatalf("this machine, run as root, has no cgroups for tasks: %v", err)
	}
	if err := c.Prepare(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, root := range []string{c.Unified, c.Memory, c.CPU} {
			if root != "" {
				syscall.Rmdir(filepath.Join(root, c.Parent))
			}
		}
	})
	return c
}

// TestCgroupStopsTaskOverItsMemory: a task that allocates more than its memory limit is
// stopped by the kernel's OOM killer in its own cgroup, and ends with a *MemoryLimitError
// naming the limit, read from the cgroup's OOM counter; its group is gone afterwards. It
// runs on what the machine mounts, cgroup v1 or v2.
func TestCgroupStopsTaskOverItsMemory(t *testing.T) {
	c := hostCgroups(t)
	r := SupervisedRunner{StateDir: t.TempDir(), Supervisor: testSupervisor(), Grace: time.Second, Cgroups: c}
	p, err := r.Start(context.Background(), api.Assignment{TaskID: 1, AllowRoot: true, MemoryLimitMiB: 64, CPULimitMillis: 1000,
		Command: []string{"dd", "if=/dev/zero", "of=/dev/null", "bs=256M", "count=1"}})
	if err != nil {
		t.Fatal(err)
	}
	code, err := p.Wait()
	if oom, ok := errors.AsType[*MemoryLimitError](err); code != 137 || !ok || oom.LimitMiB != 64 {
		log, _ := os.ReadFile(filepath.Join(runDir(r.StateDir, 1), LogFile))
		t.Errorf("Wait() = %d, %v; want 137 and the memory limit of 64 MiB (log %q)", code, err, log)
	}
	var spec taskSpec
	readJSON(taskDir(r.StateDir, 1), specFile, &spec)
	if spec.Cgroup == nil || exists(spec.Cgroup.Memory, "") {
		t.Errorf("the task's cgroup %+v is still there", spec.Cgroup)
	}
}

// TestCgroupHoldsTheTask: a task runs in its own group with its CPU quota, does not fail
// for its memory when it stays under it, and what it leaves behind, even outside its
// process group, is killed with it.
func TestCgroupHoldsTheTask(t *testing.T) {
	c := hostCgroups(t)
	quota := filepath.Join(c.CPU, c.Parent, "task-2", "cpu.cfs_quota_us")
	if c.Unified != "" {
		quota = filepath.Join(c.Unified, c.Parent, "task-2", "cpu.max")
	}
	work := t.TempDir()
	r := SupervisedRunner{StateDir: t.TempDir(), Supervisor: testSupervisor(), Grace: time.Second, Cgroups: c}
	p, err := r.Start(context.Background(), api.Assignment{TaskID: 2, AllowRoot: true, MemoryLimitMiB: 256, CPULimitMillis: 1500, Workdir: work,
		Command: []string{"/bin/sh", "-c", `cat "$0"; grep -c task-2 /proc/self/cgroup; setsid sleep 300 & echo $! > escaped; dd if=/dev/zero of=/dev/null bs=16M count=1 2>/dev/null`, quota}})
	if err != nil {
		t.Fatal(err)
	}
	if code, err := p.Wait(); code != 0 || err != nil {
		t.Errorf("Wait() = %d, %v; want 0, nil", code, err)
	}
	log, _ := os.ReadFile(filepath.Join(runDir(r.StateDir, 2), LogFile))
	lines := strings.Split(string(log), "\n")
	if wantQuota := map[bool]string{true: "150000 100000", false: "150000"}[c.Unified != ""]; len(lines) < 2 || lines[0] != wantQuota || lines[1] == "0" {
		t.Errorf("the task saw %q: want its CPU quota %q, then its own group in /proc/self/cgroup", log, wantQuota)
	}
	b, _ := os.ReadFile(filepath.Join(work, "escaped"))
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if pid <= 0 || processAlive(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("the task's process %d that left its process group outlived it", pid)
	}
}

// processAlive reports whether pid runs: it exists and is no zombie waiting to be reaped.
func processAlive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(b), ')')
	return i > 0 && !strings.HasPrefix(string(b[i+1:]), " Z")
}
