package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"kashi/api"
)

// The state directory keeps two folders per task the agent started, which outlive the agent.
// tasks/<id>/ holds the agent's records of the task, the agent's alone (mode 0700 under a
// folder of 0700):
//
//	spec.json        what to run (written by the agent before the supervisor starts)
//	lock             flock'ed by the supervisor for its whole life: held means it still runs
//	supervisor.json  the supervisor's pid, written first thing by the supervisor
//	started.json     the command's pid and start time, written once it runs
//	exit.json        the command's exit status (or why it could not start), written last
//	reported         present once the agent has queued the exit for the server
//
// runs/<id>/ is the task's own folder, of the account it runs as (mode 0700, under a folder
// of 0711 that nobody but the agent lists), mounted at /kashi-task in its container:
//
//	output.log       the command's stdout and stderr, kept on the node (0600)
//	output           the file in KASHI_OUTPUT_FILE, where the task may write its output units
//
// The task may replace what its folder holds, so the agent opens those files only as plain
// files (openTaskFile). A task started by an agent before runs/ existed keeps its log in
// tasks/<id>/. A folder never goes away while its task may be listed, so a task is never
// started twice. A later attempt of the task (a rerun placed on this node) moves an ended
// attempt's folder to tasks/<id>.<attempt>/, which goes with the reported folders (see
// setAside).
const (
	specFile       = "spec.json"
	lockFile       = "lock"
	supervisorFile = "supervisor.json"
	startedFile    = "started.json"
	exitFile       = "exit.json"
	// LogFile is the name of a task's full log, under <state-dir>/tasks/<id>/.
	LogFile         = "output.log"
	outputUnitsFile = "output"
	reportedFile    = "reported"
)

// taskSpec is what a supervisor runs: the assignment and how long a stop may take.
type taskSpec struct {
	Assignment api.Assignment `json:"assignment"`
	Grace      time.Duration  `json:"grace_ns"`
	// Container is the runtime that runs the assignment's image; nil for a host process.
	Container *ContainerConfig `json:"container,omitempty"`
	// RunAs is the account the task runs as; nil for the agent's own user.
	RunAs *runAs `json:"run_as,omitempty"`
	// RunDir is the task's own folder (runs/<id>); "" for a task started before it existed,
	// whose log is in its records' folder.
	RunDir string `json:"run_dir,omitempty"`
	// Cgroup is the task's control group with its limits; nil without one.
	Cgroup *taskCgroup `json:"cgroup,omitempty"`
}

// logDir is the folder of the task's log and output file: its own, or for a task started
// before it had one, dir, its records' folder.
func (s taskSpec) logDir(dir string) string {
	if s.RunDir != "" {
		return s.RunDir
	}
	return dir
}

// supervisorRecord is the supervisor's pid.
type supervisorRecord struct {
	PID int `json:"pid"`
}

// startedRecord is the running command: its pid (also its process group) and start.
type startedRecord struct {
	PID       int       `json:"pid"`
	BootID    string    `json:"boot_id"`
	StartedAt time.Time `json:"started_at"`
}

// exitRecord is how the command ended. StartError is set when it never ran. MemoryLimitMiB
// is set when it failed after the kernel's OOM killer stopped it in its cgroup, at that limit.
type exitRecord struct {
	ExitCode       int       `json:"exit_code"`
	EndedAt        time.Time `json:"ended_at"`
	StartError     string    `json:"start_error,omitempty"`
	Error          string    `json:"error,omitempty"`
	MemoryLimitMiB int64     `json:"memory_limit_mib,omitempty"`
}

// taskDir returns the folder of a task's records under the state directory.
func taskDir(stateDir string, id int64) string {
	return filepath.Join(stateDir, "tasks", strconv.FormatInt(id, 10))
}

// runDir returns the task's own folder under the state directory.
func runDir(stateDir string, id int64) string {
	return filepath.Join(stateDir, "runs", strconv.FormatInt(id, 10))
}

// openTaskFile opens a file of a task's own folder, which the task's account may have
// replaced: never through a symbolic link, and only a regular file of one link (not a FIFO
// that would block the agent, nor a hard link to a file of someone else).
func openTaskFile(path string, flag int) (*os.File, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o600)
	if err != nil {
		return nil, err
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		f.Close()
		return nil, err
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG || st.Nlink != 1 {
		f.Close()
		return nil, fmt.Errorf("%s is not a plain file", path)
	}
	return f, nil
}

// MemoryLimitError is how a task ended that the kernel's OOM killer stopped in its cgroup:
// it used more host memory than its limit.
type MemoryLimitError struct {
	LimitMiB int64
}

func (e *MemoryLimitError) Error() string {
	return fmt.Sprintf("stopped: used more host memory than its limit of %d MiB", e.LimitMiB)
}

// writeJSON writes v to dir/name atomically: a reader sees the old file or the whole new one.
func writeJSON(dir, name string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+name+".*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, name))
}

// readJSON reads dir/name into v; a missing file returns an error matching fs.ErrNotExist.
func readJSON(dir, name string, v any) error {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(dir, name), err)
	}
	return nil
}

// exists reports whether dir/name exists.
func exists(dir, name string) bool {
	_, err := os.Stat(filepath.Join(dir, name))
	return err == nil
}

// tryLock opens dir/lock and takes its exclusive flock without waiting. held reports that
// another open file holds it; then f is nil.
func tryLock(dir string) (f *os.File, held bool, err error) {
	f, err = os.OpenFile(filepath.Join(dir, lockFile), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, false, err
	}
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		f.Close()
		return nil, true, nil
	}
	if err != nil {
		f.Close()
		return nil, false, err
	}
	return f, false, nil
}

// waitUnlocked blocks until no supervisor holds dir/lock.
func waitUnlocked(dir string) error {
	f, err := os.OpenFile(filepath.Join(dir, lockFile), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// bootID identifies the running kernel, so that a pid recorded before a reboot is not
// mistaken for a process of now.
func bootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return string(b)
}

// isNotExist reports whether err says a file is missing.
func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
