package agent

import (
	"bytes"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"

	"kashi/api"
)

// PIDOwner is a Process that can tell whether a process seen on a GPU belongs to its task.
// Processes that do not implement it own no GPU process.
type PIDOwner interface {
	OwnsPID(pid uint32) bool
}

// maxAncestry bounds the walk up a process tree (a loop guard).
const maxAncestry = 64

// procFS reads the process table under root ("/proc").
type procFS struct {
	root string
}

// parent returns a process's parent pid, or 0 when the process is gone or unreadable.
func (p procFS) parent(pid int) int {
	b, err := os.ReadFile(filepath.Join(p.root, strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0
	}
	// "pid (comm) state ppid …"; comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}

// descends reports whether pid is root or one of its descendants.
func (p procFS) descends(pid, root int) bool {
	for range maxAncestry {
		if pid == root {
			return true
		}
		if pid <= 1 {
			return false
		}
		pid = p.parent(pid)
	}
	return false
}

// inContainer reports whether pid's cgroup (any hierarchy, v1 or v2) is the container's: docker,
// podman and nerdctl name their containers' cgroups after the container's id, with the
// systemd driver (…/docker-<id>.scope, …/libpod-<id>.scope, …/nerdctl-<id>.scope) and with
// cgroupfs (/docker/<id>, /libpod_parent/libpod-<id>, /default/<id>).
func (p procFS) inContainer(pid int, containerID string) bool {
	b, err := os.ReadFile(filepath.Join(p.root, strconv.Itoa(pid), "cgroup"))
	if err != nil {
		return false
	}
	for line := range strings.Lines(string(b)) {
		// "hierarchy-id:controllers:path"; the path may itself hold colons.
		f := strings.SplitN(strings.TrimSpace(line), ":", 3)
		if len(f) == 3 && strings.Contains(f[2], containerID) {
			return true
		}
	}
	return false
}

// describe returns a process's user name and command line, as far as they can be read.
func (p procFS) describe(pid uint32) (userName, command string) {
	dir := filepath.Join(p.root, strconv.FormatUint(uint64(pid), 10))
	if b, err := os.ReadFile(filepath.Join(dir, "cmdline")); err == nil {
		command = strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
		if len(command) > 200 {
			command = strings.ToValidUTF8(command[:200], "")
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "status")); err == nil {
		for line := range strings.Lines(string(b)) {
			if rest, ok := strings.CutPrefix(line, "Uid:"); ok {
				if f := strings.Fields(rest); len(f) > 0 {
					userName = f[0]
					if u, err := user.LookupId(f[0]); err == nil {
						userName = u.Username
					}
				}
				break
			}
		}
	}
	return userName, command
}

// account marks the GPU processes of samples with the task they belong to, or as unmanaged
// with the user and command that run them.
func (a *Agent) account(samples []api.Sample) {
	for i := range samples {
		for j := range samples[i].Processes {
			p := &samples[i].Processes[j]
			if id, ok := a.ownerOf(p.PID); ok {
				p.TaskID = id
				continue
			}
			p.Unmanaged = true
			p.User, p.Command = a.procs.describe(p.PID)
		}
	}
}

// ownerOf returns the task a GPU process belongs to.
func (a *Agent) ownerOf(pid uint32) (int64, bool) {
	for id, t := range a.tasks {
		if o, ok := t.proc.(PIDOwner); ok && o.OwnsPID(pid) {
			return id, true
		}
	}
	return 0, false
}
