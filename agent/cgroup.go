package agent

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Cgroups puts each task in a control group of its own, <Parent>/task-<id>, whose memory and
// CPU limits are the task's: the kernel's OOM killer stops a task that uses more memory than
// its limit, within its group, and the group's OOM counter tells the agent so. It works on
// the unified hierarchy (cgroup v2) when that holds the memory and cpu controllers, else on
// the v1 hierarchies of those controllers, as FindCgroups finds them.
type Cgroups struct {
	// Parent is the group, under each hierarchy's mount point, that holds the tasks' groups.
	Parent string
	// Home is the group, under each hierarchy's mount point, that a task's supervisor goes
	// back to when the task's group ends: the agent's own when Parent is under it (on v2 its
	// leaf), "" (the root) otherwise.
	Home string
	// Unified is the cgroup v2 mount, when it holds the memory and cpu controllers; else
	// Memory and CPU are the cgroup v1 mounts of those controllers.
	Unified     string
	Memory, CPU string
}

// AutoCgroup is the --cgroup-parent that puts the tasks' groups under the agent's own group
// where its service manager delegated that group to it so that the agent can be restarted
// while tasks run (deploy/kashi-agent.service: Delegate=yes, DelegateSubgroup=agent), in
// <own>/kashi/task-<id>, and else under FallbackCgroup at each hierarchy's root.
const AutoCgroup = "auto"

// FallbackCgroup is the group under each hierarchy's root that AutoCgroup falls back to.
const FallbackCgroup = "kashi"

// agentLeaf and tasksGroup are the groups under the agent's own delegated group that hold,
// on cgroup v2, the agent (systemd starts it there) and the tasks' groups (not "tasks": a v1
// group has a file of that name).
const agentLeaf, tasksGroup = "agent", "kashi"

// mount is a cgroup hierarchy's mount: where it is, and which group of the hierarchy it
// shows there (/ but in a container without a cgroup namespace of its own).
type mount struct{ dir, root string }

// FindCgroups finds where the tasks' groups go from mountinfo, the text of
// /proc/self/mountinfo: the unified hierarchy when its cgroup.controllers lists memory and
// cpu, else the v1 hierarchies mounted with those controllers. parent is a relative path
// under each hierarchy's root, or AutoCgroup: then the agent's own group, as self (the text
// of /proc/self/cgroup) names it, where ownCgroup finds it delegated, else FallbackCgroup.
func FindCgroups(mountinfo, self, parent string) (*Cgroups, error) {
	if parent != AutoCgroup && (parent == "" || filepath.IsAbs(parent) || filepath.Clean(parent) != parent || strings.HasPrefix(parent, "..")) {
		return nil, fmt.Errorf("cgroup parent %q must be %s or a clean relative path such as %s", parent, AutoCgroup, FallbackCgroup)
	}
	var unified, memory, cpu mount
	for line := range strings.Lines(mountinfo) {
		// id parent major:minor root mountpoint options [optional…] - fstype source super-options
		pre, post, ok := strings.Cut(strings.TrimSpace(line), " - ")
		f, g := strings.Fields(pre), strings.Fields(post)
		if !ok || len(f) < 5 || len(g) < 3 {
			continue
		}
		switch m := (mount{f[4], f[3]}); g[0] {
		case "cgroup2":
			unified = m
		case "cgroup":
			opts := strings.Split(g[2], ",")
			if slices.Contains(opts, "memory") {
				memory = m
			}
			if slices.Contains(opts, "cpu") {
				cpu = m
			}
		}
	}
	c := &Cgroups{Parent: parent}
	if unified.dir != "" && hasControllers(unified.dir) {
		c.Unified = unified.dir
	} else if memory.dir != "" && cpu.dir != "" {
		c.Memory, c.CPU = memory.dir, cpu.dir
	} else {
		return nil, errors.New("no cgroup hierarchy with the memory and cpu controllers is mounted")
	}
	if parent == AutoCgroup {
		c.Parent = FallbackCgroup
		if own, home, ok := ownCgroup(self, unified, memory, cpu, c.Unified != ""); ok {
			c.Parent, c.Home = filepath.Join(own, tasksGroup), home
		}
	}
	return c, nil
}

// hasControllers reports whether a v2 group offers the memory and cpu controllers.
func hasControllers(dir string) bool {
	b, _ := os.ReadFile(filepath.Join(dir, "cgroup.controllers"))
	ctl := strings.Fields(string(b))
	return slices.Contains(ctl, "memory") && slices.Contains(ctl, "cpu")
}

// ownCgroup finds the agent's own group, delegated to it, in the hierarchies it uses, from
// self, the text of /proc/self/cgroup: own (relative to the mounts) and home, the agent's
// group under it. On v2 the agent must be in the leaf own/agent, where systemd starts a
// unit with DelegateSubgroup=agent (and restarts it while tasks run: a group whose
// controllers its children use may hold no process), and own must offer the memory and
// cpu controllers, as a delegated group does. On v1 the agent's groups in the memory and cpu
// hierarchies must be those systemd tracks it by (name=systemd), which it makes for a unit
// with Delegate=yes, and neither the root nor a login session's, which ends with it.
func ownCgroup(self string, unified, memory, cpu mount, v2 bool) (own, home string, ok bool) {
	// path is the agent's group in the hierarchy that has controller ("" the unified one),
	// relative to its mount m.
	path := func(controller string, m mount) (string, bool) {
		for line := range strings.Lines(self) {
			f := strings.SplitN(strings.TrimSpace(line), ":", 3)
			if len(f) != 3 || (controller == "" && f[0] != "0") || (controller != "" && !slices.Contains(strings.Split(f[1], ","), controller)) {
				continue
			}
			rel, err := filepath.Rel(m.root, f[2])
			return rel, err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
		}
		return "", false
	}
	if v2 {
		home, ok := path("", unified)
		if !ok || filepath.Base(home) != agentLeaf || !hasControllers(filepath.Join(unified.dir, filepath.Dir(home))) {
			return "", "", false
		}
		return filepath.Dir(home), home, true
	}
	tracked, _ := path("name=systemd", mount{root: "/"})
	mem, okMem := path("memory", memory)
	cp, okCPU := path("cpu", cpu)
	own = strings.TrimSuffix(mem, "/"+agentLeaf)
	if !okMem || !okCPU || mem != cp || mem != tracked || own == "." || own == agentLeaf ||
		strings.HasPrefix(filepath.Base(own), "session-") && strings.HasSuffix(own, ".scope") {
		return "", "", false
	}
	return own, mem, true
}

// mounts are the mounts of the hierarchies the tasks' groups are in.
func (c *Cgroups) mounts() []string {
	if c.Unified != "" {
		return []string{c.Unified}
	}
	return []string{c.Memory, c.CPU}
}

// Prepare makes the parent group, in each hierarchy, and on cgroup v2 lets its children use
// the memory and cpu controllers, from the root down, or from the agent's own group when the
// parent is under it (Home set). An agent that may not (not root, no delegation) fails here.
func (c *Cgroups) Prepare() error {
	if c.Unified == "" {
		for _, root := range c.mounts() {
			if err := os.MkdirAll(filepath.Join(root, c.Parent), 0o755); err != nil {
				return fmt.Errorf("cgroup: %w", err)
			}
		}
		return nil
	}
	dir, parts := c.Unified, strings.Split(c.Parent, "/")
	if c.Home != "" {
		dir, parts = filepath.Join(c.Unified, filepath.Dir(c.Parent)), []string{filepath.Base(c.Parent)}
	}
	for _, part := range parts {
		if err := writeCgroup(dir, "cgroup.subtree_control", "+memory +cpu"); err != nil {
			return err
		}
		dir = filepath.Join(dir, part)
		if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("cgroup: %w", err)
		}
	}
	return writeCgroup(dir, "cgroup.subtree_control", "+memory +cpu")
}

// cfsPeriod is the CPU period of a task's quota, in microseconds.
const cfsPeriod = 100_000

// make makes (or takes again, for a restart) the group of task id, with a memory limit in MiB
// and a CPU limit in thousandths of a CPU; 0 leaves either unlimited. The memory limit holds
// swap too: the task cannot swap its way past it.
func (c *Cgroups) make(id int64, memoryMiB, cpuMillis int64) (*taskCgroup, error) {
	name := "task-" + strconv.FormatInt(id, 10)
	g := &taskCgroup{MemoryMiB: memoryMiB}
	mem, quota := "max", "max"
	if memoryMiB > 0 {
		mem = strconv.FormatInt(memoryMiB<<20, 10)
	}
	if cpuMillis > 0 {
		quota = strconv.FormatInt(cpuMillis*cfsPeriod/1000, 10)
	}
	if c.Unified != "" {
		g.V2, g.MemoryHome, g.CPUHome = true, filepath.Join(c.Unified, c.Home), filepath.Join(c.Unified, c.Home)
		g.Memory, g.CPU = filepath.Join(c.Unified, c.Parent, name), filepath.Join(c.Unified, c.Parent, name)
		if err := mkdirCgroup(g.Memory); err != nil {
			return nil, err
		}
		return g, errors.Join(writeCgroup(g.Memory, "memory.max", mem),
			writeCgroupIf(g.Memory, "memory.swap.max", "0"),
			writeCgroup(g.CPU, "cpu.max", quota+" "+strconv.Itoa(cfsPeriod)))
	}
	g.MemoryHome, g.CPUHome = filepath.Join(c.Memory, c.Home), filepath.Join(c.CPU, c.Home)
	g.Memory, g.CPU = filepath.Join(c.Memory, c.Parent, name), filepath.Join(c.CPU, c.Parent, name)
	if err := errors.Join(mkdirCgroup(g.Memory), mkdirCgroup(g.CPU)); err != nil {
		return nil, err
	}
	if quota == "max" {
		quota = "-1"
	}
	if mem == "max" {
		mem = "-1"
	}
	// memsw (memory and swap) may not be under the memory limit: lift it, set the limit, then
	// hold it to the limit too.
	return g, errors.Join(writeCgroupIf(g.Memory, "memory.memsw.limit_in_bytes", "-1"),
		writeCgroup(g.Memory, "memory.limit_in_bytes", mem),
		writeCgroupIf(g.Memory, "memory.memsw.limit_in_bytes", mem),
		writeCgroup(g.CPU, "cpu.cfs_period_us", strconv.Itoa(cfsPeriod)),
		writeCgroup(g.CPU, "cpu.cfs_quota_us", quota))
}

// taskCgroup is a task's control group, kept in its spec for the supervisor: on cgroup v2 one
// group (Memory and CPU the same), on v1 one in each hierarchy. MemoryHome and CPUHome are
// where the supervisor goes when the group ends, a group that may hold it: the agent's own
// (Cgroups.Home), or the hierarchy's root.
type taskCgroup struct {
	V2         bool   `json:"v2,omitempty"`
	Memory     string `json:"memory"`
	CPU        string `json:"cpu"`
	MemoryHome string `json:"memory_root"`
	CPUHome    string `json:"cpu_root"`
	// MemoryMiB is the task's memory limit, 0 for none.
	MemoryMiB int64 `json:"memory_mib,omitempty"`
}

// groups are the group's directories, each once, with the supervisor's home in their
// hierarchies.
func (g *taskCgroup) groups() [][2]string {
	if g.CPU == g.Memory {
		return [][2]string{{g.Memory, g.MemoryHome}}
	}
	return [][2]string{{g.Memory, g.MemoryHome}, {g.CPU, g.CPUHome}}
}

// join moves process pid into the group; its children are born there.
func (g *taskCgroup) join(pid int) error {
	for _, dir := range g.groups() {
		if err := writeCgroup(dir[0], "cgroup.procs", strconv.Itoa(pid)); err != nil {
			return err
		}
	}
	return nil
}

// oomKills counts the processes the kernel's OOM killer stopped in the group for passing its
// memory limit: oom_kill of memory.events (v2) or of memory.oom_control (v1).
func (g *taskCgroup) oomKills() int {
	name := "memory.oom_control"
	if g.V2 {
		name = "memory.events"
	}
	f, err := os.Open(filepath.Join(g.Memory, name))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if n, ok := strings.CutPrefix(sc.Text(), "oom_kill "); ok {
			k, _ := strconv.Atoi(strings.TrimSpace(n))
			return k
		}
	}
	return 0
}

// pids lists the processes in the group but self.
func (g *taskCgroup) pids(self int) []int {
	b, _ := os.ReadFile(filepath.Join(g.Memory, "cgroup.procs"))
	var out []int
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil && pid != self {
			out = append(out, pid)
		}
	}
	return out
}

// end kills every process left in the group but self (those that left the task's process
// group too), waits up to killWait for them to go, moves self to its home in each hierarchy
// when it is in the group, and removes the group.
func (g *taskCgroup) end(self int) error {
	for deadline := time.Now().Add(killWait); ; time.Sleep(5 * time.Millisecond) {
		pids := g.pids(self)
		if len(pids) == 0 || time.Now().After(deadline) {
			break
		}
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		for {
			if pid, _ := syscall.Wait4(-1, nil, syscall.WNOHANG, nil); pid <= 0 {
				break
			}
		}
	}
	var errs []error
	for _, dir := range g.groups() {
		if self > 0 {
			// The parent of <Parent>/task-<id> may not hold processes on cgroup v2: the
			// agent's leaf, or the root.
			writeCgroup(dir[1], "cgroup.procs", strconv.Itoa(self))
		}
		if err := removeCgroup(dir[0]); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// removeCgroup removes a group's directory, retrying for killWait while its last processes
// leave it; a group already gone is no error.
func removeCgroup(dir string) error {
	for deadline := time.Now().Add(killWait); ; time.Sleep(10 * time.Millisecond) {
		err := syscall.Rmdir(dir)
		if err == nil || errors.Is(err, syscall.ENOENT) {
			return nil
		}
		if !errors.Is(err, syscall.EBUSY) || time.Now().After(deadline) {
			return fmt.Errorf("cgroup: remove %s: %w", dir, err)
		}
	}
}

// mkdirCgroup makes a group's directory; one that exists is taken again.
func mkdirCgroup(dir string) error {
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("cgroup: %w", err)
	}
	return nil
}

// writeCgroup writes value to a group's control file.
func writeCgroup(dir, name, value string) error {
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("cgroup: %w", err)
	}
	_, err = f.WriteString(value)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("cgroup: write %q to %s: %w", value, filepath.Join(dir, name), err)
	}
	return nil
}

// writeCgroupIf writes value to a control file that the kernel may not have (swap
// accounting off): a missing file is no error.
func writeCgroupIf(dir, name, value string) error {
	if !exists(dir, name) {
		return nil
	}
	return writeCgroup(dir, name, value)
}
