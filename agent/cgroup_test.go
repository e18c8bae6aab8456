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
		got, err := FindCgroups(tc.mountinfo, "", "kashi")
		if err != nil || *got != tc.want {
			t.Errorf("%s: FindCgroups() = %+v, %v; want %+v", name, got, err, tc.want)
		}
	}
	if _, err := FindCgroups("30 23 0:26 / "+empty+" rw - cgroup2 cgroup2 rw\n", "", "kashi"); err == nil {
		t.Error("FindCgroups() without memory and cpu controllers: no error")
	}
	for _, bad := range []string{"", "/kashi", "../kashi", "kashi/../.."} {
		if _, err := FindCgroups(v1, "", bad); err == nil {
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
		MemoryHome: root, CPUHome: root, MemoryMiB: 2048}); *g != *want {
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

// cgroupTree makes a cgroup v2 file tree for a test: a root whose cgroup.controllers lists
// memory and cpu, and the groups given, each with the controllers listed.
func cgroupTree(t *testing.T, groups map[string]string) (root, mountinfo string) {
	t.Helper()
	root = t.TempDir()
	groups["."] = "cpuset cpu io memory pids"
	for g, ctl := range groups {
		os.MkdirAll(filepath.Join(root, g), 0o755)
		os.WriteFile(filepath.Join(root, g, "cgroup.controllers"), []byte(ctl+"\n"), 0o644)
	}
	return root, "30 23 0:26 / " + root + " rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n"
}

// TestFindOwnCgroupV2: with --cgroup-parent auto on cgroup v2, the tasks' groups go under
// the agent's own group when systemd started the agent in its leaf agent/
// (DelegateSubgroup=agent) of a group that offers memory and cpu (Delegate=yes), and
// otherwise under kashi at the root, as before: an agent in its unit's group itself (systemd
// older than 254) could not be restarted there while tasks run, nor one of a login session
// or of a group without the controllers.
func TestFindOwnCgroupV2(t *testing.T) {
	const unit = "system.slice/kashi-agent.service"
	root, mi := cgroupTree(t, map[string]string{unit: "cpu memory pids", unit + "/agent": "", "user.slice/session-4.scope/agent": "", "system.slice/other.service": "pids"})
	for self, want := range map[string]Cgroups{
		"0::/" + unit + "/agent\n":                             {Parent: unit + "/kashi", Home: unit + "/agent", Unified: root},
		"0::/" + unit + "\n":                                   {Parent: "kashi", Unified: root},
		"0::/system.slice/other.service/agent\n":               {Parent: "kashi", Unified: root},
		"0::/user.slice/session-4.scope/agent\n":               {Parent: "kashi", Unified: root},
		"0::/\n":                                               {Parent: "kashi", Unified: root},
		"12:memory:/" + unit + "/agent\n0::/elsewhere/agent\n": {Parent: "kashi", Unified: root},
	} {
		got, err := FindCgroups(mi, self, AutoCgroup)
		if err != nil || *got != want {
			t.Errorf("FindCgroups(%q) = %+v, %v; want %+v", self, got, err, want)
		}
	}
	if got, err := FindCgroups(mi, "0::/"+unit+"/agent\n", "kashi"); err != nil || got.Parent != "kashi" || got.Home != "" {
		t.Errorf("FindCgroups(kashi) = %+v, %v: a parent named stays under the root", got, err)
	}
}

// TestCgroupV2Delegated: under the agent's delegated group the agent writes only there (its
// group's and tasks/'s cgroup.subtree_control, never the root's), a task's group is
// <own>/kashi/task-<id> with its limits, and its supervisor goes back to the agent's leaf.
// A restarted agent (systemd starts it in the leaf again) finds the groups there, and the
// running task's group untouched.
func TestCgroupV2Delegated(t *testing.T) {
	const own = "system.slice/kashi-agent.service"
	root, mi := cgroupTree(t, map[string]string{own: "cpu memory", own + "/agent": ""})
	read := func(path string) string { b, _ := os.ReadFile(filepath.Join(root, path)); return string(b) }
	for run := range 2 {
		c, err := FindCgroups(mi, "0::/"+own+"/agent\n", AutoCgroup)
		if err == nil {
			err = c.Prepare()
		}
		if err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		if run == 1 {
			if got := read(own + "/kashi/task-7/memory.max"); got != strconv.Itoa(512<<20) {
				t.Errorf("after a restart the running task's memory.max = %q, want it kept", got)
			}
			break
		}
		g, err := c.make(7, 512, 2000)
		if err != nil {
			t.Fatal(err)
		}
		home := filepath.Join(root, own, "agent")
		if want := (taskCgroup{V2: true, Memory: filepath.Join(root, own, "kashi/task-7"), CPU: filepath.Join(root, own, "kashi/task-7"),
			MemoryHome: home, CPUHome: home, MemoryMiB: 512}); *g != want {
			t.Errorf("make() = %+v, want %+v", g, want)
		}
	}
	for path, want := range map[string]string{
		"cgroup.subtree_control":              "",
		own + "/cgroup.subtree_control":       "+memory +cpu",
		own + "/kashi/cgroup.subtree_control": "+memory +cpu",
		own + "/kashi/task-7/cpu.max":         "200000 100000",
		"system.slice/cgroup.subtree_control": "",
		own + "/agent/cgroup.subtree_control": "",
	} {
		if got := read(path); got != want {
			t.Errorf("%s = %q, want %q", path, got, want)
		}
	}
}

// TestFindOwnCgroupV1: with --cgroup-parent auto on cgroup v1, the tasks' groups go under
// the agent's own groups in the memory and cpu hierarchies when they are those systemd
// tracks it by (Delegate=yes makes them), also in its leaf agent/ (DelegateSubgroup=),
// and the supervisor goes back to the agent's group; otherwise (groups of the slice, a login
// session's, the root, no systemd) under kashi at the root.
func TestFindOwnCgroupV1(t *testing.T) {
	mi := `32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime shared:1 - cgroup cgroup rw,cpu,cpuacct
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd
`
	const unit = "/system.slice/kashi-agent.service"
	groups := func(systemd, memory, cpu string) string {
		return "12:memory:" + memory + "\n5:cpu,cpuacct:" + cpu + "\n3:cpuset:/\n1:name=systemd:" + systemd + "\n0::" + systemd + "\n"
	}
	v1 := Cgroups{Parent: "kashi", Memory: "/sys/fs/cgroup/memory", CPU: "/sys/fs/cgroup/cpu,cpuacct"}
	delegated, leaf := v1, v1
	delegated.Parent, delegated.Home = unit[1:]+"/kashi", unit[1:]
	leaf.Parent, leaf.Home = unit[1:]+"/kashi", unit[1:]+"/agent"
	for self, want := range map[string]Cgroups{
		groups(unit, unit, unit):                            delegated,
		groups(unit+"/agent", unit+"/agent", unit+"/agent"): leaf,
		groups(unit, "/system.slice", "/system.slice"):      v1,
		groups(unit, unit, "/"):                             v1,
		groups("/user.slice/user-0.slice/session-3.scope", "/user.slice/user-0.slice/session-3.scope", "/user.slice/user-0.slice/session-3.scope"): v1,
		groups("/", "/", "/"): v1,
		"12:memory:" + unit + "\n5:cpu,cpuacct:" + unit + "\n": v1,
	} {
		got, err := FindCgroups(mi, self, AutoCgroup)
		if err != nil || *got != want {
			t.Errorf("FindCgroups(%q) = %+v, %v; want %+v", self, got, err, want)
		}
	}

	// On a file tree: the tasks' parent is made in both hierarchies, and a task's group's
	// supervisor goes back to the agent's group.
	root := t.TempDir()
	mem, cpu := filepath.Join(root, "memory"), filepath.Join(root, "cpu")
	c := &Cgroups{Parent: delegated.Parent, Home: delegated.Home, Memory: mem, CPU: cpu}
	for _, h := range []string{mem, cpu} {
		os.MkdirAll(filepath.Join(h, unit), 0o755)
		os.WriteFile(filepath.Join(h, unit, "tasks"), nil, 0o644) // v1's list of the group's threads
	}
	if err := c.Prepare(); err != nil {
		t.Fatal(err)
	}
	g, err := c.make(3, 64, 500)
	if err != nil {
		t.Fatal(err)
	}
	if want := (taskCgroup{Memory: filepath.Join(mem, unit, "kashi/task-3"), CPU: filepath.Join(cpu, unit, "kashi/task-3"),
		MemoryHome: filepath.Join(mem, unit), CPUHome: filepath.Join(cpu, unit), MemoryMiB: 64}); *g != want {
		t.Errorf("make() = %+v, want %+v", g, want)
	}
	if b, _ := os.ReadFile(filepath.Join(cpu, unit, "kashi/task-3/cpu.cfs_quota_us")); string(b) != "50000" {
		t.Errorf("cpu.cfs_quota_us = %q, want 50000", b)
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
	c, err := FindCgroups(string(mi), "", fmt.Sprintf("kashi-test-%d", rand.Int64()))
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

// TestCgroupDelegatedOnHost: on this machine's cgroups, in a group made to stand for the
// agent's unit as systemd's Delegate=yes and DelegateSubgroup=agent leave it (on v2 the
// agent in the leaf agent/ of a group that offers memory and cpu; on v1 the agent in groups
// of its own in the memory, cpu and name=systemd hierarchies), --cgroup-parent auto puts a
// task in <own>/kashi/task-<id>, where the kernel stops it over its memory limit, and its
// supervisor leaves the group for the agent's and removes it.
func TestCgroupDelegatedOnHost(t *testing.T) {
	needRoot(t)
	mi, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	host, err := FindCgroups(string(mi), "", "probe")
	if err != nil {
		t.Fatalf("this machine, run as root, has no cgroups for tasks: %v", err)
	}
	unit := fmt.Sprintf("kashi-test-%d.service", rand.Int64())
	roots := []string{host.Unified}
	home := filepath.Join(unit, "agent")
	if host.Unified == "" {
		roots, home = []string{host.Memory, host.CPU}, unit
		for line := range strings.Lines(string(mi)) {
			if f := strings.Fields(line); len(f) > 4 && strings.HasSuffix(strings.TrimSpace(line), ",name=systemd") {
				roots = append(roots, f[4])
			}
		}
		if len(roots) != 3 {
			t.Skip("cgroup v1 without systemd's name=systemd hierarchy: no unit to stand for")
		}
	} else if err := writeCgroup(host.Unified, "cgroup.subtree_control", "+memory +cpu"); err != nil {
		t.Fatal(err)
	}
	// Where the test process was, to go back to: the group of each hierarchy's mount.
	was, _ := os.ReadFile("/proc/self/cgroup")
	t.Cleanup(func() {
		for _, root := range roots {
			for line := range strings.Lines(string(was)) {
				if f := strings.SplitN(strings.TrimSpace(line), ":", 3); len(f) == 3 && exists(filepath.Join(root, f[2]), "") &&
					writeCgroup(filepath.Join(root, f[2]), "cgroup.procs", strconv.Itoa(os.Getpid())) == nil {
					break
				}
			}
			for _, g := range []string{filepath.Join(unit, "kashi"), filepath.Join(unit, "agent"), unit} {
				syscall.Rmdir(filepath.Join(root, g))
			}
		}
	})
	for _, root := range roots {
		if err := os.MkdirAll(filepath.Join(root, home), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := writeCgroup(filepath.Join(root, home), "cgroup.procs", strconv.Itoa(os.Getpid())); err != nil {
			t.Fatal(err)
		}
	}

	self, _ := os.ReadFile("/proc/self/cgroup")
	c, err := FindCgroups(string(mi), string(self), AutoCgroup)
	if err != nil || c.Parent != filepath.Join(unit, "kashi") || c.Home != home {
		t.Fatalf("FindCgroups(auto) = %+v, %v in %q; want tasks under %s", c, err, self, unit)
	}
	if err := c.Prepare(); err != nil {
		t.Fatal(err)
	}
	r := SupervisedRunner{StateDir: t.TempDir(), Supervisor: testSupervisor(), Grace: time.Second, Cgroups: c}
	p, err := r.Start(context.Background(), api.Assignment{TaskID: 5, AllowRoot: true, MemoryLimitMiB: 64, CPULimitMillis: 1000,
		Command: []string{"dd", "if=/dev/zero", "of=/dev/null", "bs=256M", "count=1"}})
	if err != nil {
		t.Fatal(err)
	}
	code, err := p.Wait()
	if oom, ok := errors.AsType[*MemoryLimitError](err); code != 137 || !ok || oom.LimitMiB != 64 {
		log, _ := os.ReadFile(filepath.Join(runDir(r.StateDir, 5), LogFile))
		t.Errorf("Wait() = %d, %v; want 137 and the memory limit of 64 MiB (log %q)", code, err, log)
	}
	var spec taskSpec
	readJSON(taskDir(r.StateDir, 5), specFile, &spec)
	if g := spec.Cgroup; g == nil || g.Memory != filepath.Join(roots[0], unit, "kashi/task-5") || g.MemoryHome != filepath.Join(roots[0], home) || exists(g.Memory, "") {
		t.Errorf("the task's cgroup %+v: want %s/kashi/task-5, gone, with the agent's group as home", spec.Cgroup, unit)
	}
}
