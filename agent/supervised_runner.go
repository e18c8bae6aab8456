package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"kashi/api"
)

const (
	// killWait bounds how long Stop waits after SIGKILL, for a process stuck in the kernel.
	killWait = 5 * time.Second
	// startWait bounds how long Start waits for the supervisor to say the command runs.
	startWait = 30 * time.Second
	// keepReported is how long the folder (and log) of a reported task stays on the node.
	keepReported = 30 * 24 * time.Hour
)

// ErrAlreadyStarted is returned by SupervisedRunner.Start for a task that has a folder in the
// state directory: it ran, or runs, already.
var ErrAlreadyStarted = errors.New("task already started on this node")

// SupervisedRunner runs each task under a supervisor process of its own (see Supervise), in
// its own session, as the Unix account its assignment names, in a cgroup of its own with its
// limits, with the task's records in <StateDir>/tasks/<id>/ and its own folder (log and output
// file, the account's) in <StateDir>/runs/<id>/. Tasks outlive the agent: Adopt finds them
// again after a restart.
type SupervisedRunner struct {
	// StateDir is the agent's state directory.
	StateDir string
	// Supervisor is the argv that starts a supervisor; the task folder is appended, e.g.
	// {"/usr/bin/kashi", "agent", "supervise"}.
	Supervisor []string
	// Grace is how long the supervisor waits after SIGTERM before SIGKILL when the task is
	// stopped, also when the agent is gone meanwhile.
	Grace time.Duration
	// Container runs the tasks that name an image; nil refuses them.
	Container *ContainerConfig
	// ProcRoot is where the process table is read, to tell a task's GPU processes;
	// "" means /proc (tests point it at fixtures).
	ProcRoot string
	// Cgroups gives each task a control group with its memory and CPU limits; nil runs
	// tasks without limits.
	Cgroups *Cgroups
}

// procs is the process table the runner's tasks are matched in.
func (r SupervisedRunner) procs() procFS {
	if r.ProcRoot == "" {
		return procFS{root: "/proc"}
	}
	return procFS{root: r.ProcRoot}
}

// Adopted is a task found in the state directory.
type Adopted struct {
	TaskID   int64
	GPUUUIDs []string
	// Attempt is the task's run it is (0 from a folder written before attempts).
	Attempt int
	// Proc watches the task; its Wait returns at once when the task already ended.
	Proc Process
	// Reported says the agent already queued the task's exit for the server.
	Reported bool
}

// Start writes the task's spec, starts its supervisor and returns once the command runs, or
// with the reason it could not start: a *StartRefused when the task may not run here as its
// assignment says.
func (r SupervisedRunner) Start(ctx context.Context, a api.Assignment) (Process, error) {
	if len(a.Command) == 0 && a.Image == "" {
		return nil, fmt.Errorf("agent: start task %d: empty command", a.TaskID)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("agent: start task %d: %w", a.TaskID, err)
	}
	dir := taskDir(r.StateDir, a.TaskID)
	if exists(dir, specFile) {
		if err := setAside(dir, a); err != nil {
			return nil, fmt.Errorf("agent: start task %d: %w", a.TaskID, err)
		}
	}
	proc, err := r.spawn(dir, a)
	if err != nil {
		return nil, fmt.Errorf("agent: start task %d: %w", a.TaskID, err)
	}
	return proc, nil
}

// setAside moves the folders of an earlier attempt of the task of a out of its way, its
// records and its own folder each to <folder>.<attempt>, once that attempt ended here (its supervisor gone), marked reported so that
// it goes with the reported folders: a rerun placed on the node where an earlier attempt ran
// starts in a folder of its own. The folder of the same attempt, or of a later one, or of
// one still running, is ErrAlreadyStarted: a task is never started twice.
func setAside(dir string, a api.Assignment) error {
	var spec taskSpec
	if err := readJSON(dir, specFile, &spec); err != nil {
		return err
	}
	ran := max(spec.Assignment.Attempt, 1)
	if ran >= max(a.Attempt, 1) {
		return ErrAlreadyStarted
	}
	lock, held, err := tryLock(dir)
	if err != nil {
		return err
	}
	lock.Close()
	if held {
		return ErrAlreadyStarted
	}
	if err := os.WriteFile(filepath.Join(dir, reportedFile), nil, 0o644); err != nil {
		return err
	}
	// The attempt's own folder (runs/<id>) goes aside under the same name as its records,
	// with which it is removed; the new attempt gets a folder of its own.
	for _, d := range []string{spec.RunDir, dir} {
		if d == "" {
			continue
		}
		aside := d + "." + strconv.Itoa(ran)
		if err := os.RemoveAll(aside); err != nil {
			return err
		}
		if err := os.Rename(d, aside); err != nil && !isNotExist(err) {
			return err
		}
	}
	return nil
}

// Restart starts an ended task again in its folder (a service replica that exited): the
// records of the last run go, the log goes on. A task whose supervisor still runs is not
// started twice.
func (r SupervisedRunner) Restart(ctx context.Context, a api.Assignment) (Process, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("agent: restart task %d: %w", a.TaskID, err)
	}
	dir := taskDir(r.StateDir, a.TaskID)
	lock, held, err := tryLock(dir)
	if err != nil {
		return nil, fmt.Errorf("agent: restart task %d: %w", a.TaskID, err)
	}
	if held {
		return nil, fmt.Errorf("agent: restart task %d: %w", a.TaskID, ErrAlreadyStarted)
	}
	lock.Close() // spawn takes it again
	for _, name := range []string{exitFile, startedFile, supervisorFile} {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !isNotExist(err) {
			return nil, fmt.Errorf("agent: restart task %d: %w", a.TaskID, err)
		}
	}
	proc, err := r.spawn(dir, a)
	if err != nil {
		return nil, fmt.Errorf("agent: restart task %d: %w", a.TaskID, err)
	}
	return proc, nil
}

// spawn starts the supervisor of a new task folder with the folder's lock held, so that the
// lock is never free while the task may run. It looks up the task's account first, then
// makes the task's own folder, the account's, and its cgroup.
func (r SupervisedRunner) spawn(dir string, a api.Assignment) (Process, error) {
	ra, err := lookupRunAs(a)
	if err != nil {
		return nil, err
	}
	if err := r.folders(dir); err != nil {
		return nil, err
	}
	lock, held, err := tryLock(dir)
	if err != nil {
		return nil, err
	}
	if held {
		return nil, ErrAlreadyStarted
	}
	defer lock.Close()
	spec := taskSpec{Assignment: a, Grace: r.Grace, RunAs: ra, RunDir: runDir(r.StateDir, a.TaskID)}
	if a.Image != "" {
		spec.Container = r.Container
	}
	if err := ownFolder(spec.RunDir, ra); err != nil {
		return nil, err
	}
	if r.Cgroups != nil {
		if spec.Cgroup, err = r.Cgroups.make(a.TaskID, a.MemoryLimitMiB, a.CPULimitMillis); err != nil {
			return nil, err
		}
	}
	if err := writeJSON(dir, specFile, spec); err != nil {
		return nil, err
	}
	readyR, readyW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer readyR.Close()
	supLog, err := os.OpenFile(filepath.Join(dir, "supervisor.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		readyW.Close()
		return nil, err
	}
	defer supLog.Close()
	cmd := exec.Command(r.Supervisor[0], append(r.Supervisor[1:], dir)...)
	cmd.Stdout, cmd.Stderr = supLog, supLog
	cmd.ExtraFiles = []*os.File{lock, readyW}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	readyW.Close()
	if err != nil {
		return nil, fmt.Errorf("supervisor: %w", err)
	}
	go cmd.Wait() // reap the supervisor; the lock tells its end
	readyR.SetReadDeadline(time.Now().Add(startWait))
	msg, err := io.ReadAll(readyR)
	switch {
	case err != nil:
		return nil, fmt.Errorf("supervisor: %w", err)
	case string(msg) != "ok":
		if len(msg) == 0 {
			msg = []byte("the supervisor ended before the command started; see " + filepath.Join(dir, "supervisor.log"))
		}
		return nil, errors.New(string(msg))
	}
	lock.Close() // the supervisor holds it now
	return watch(dir, spec.logDir(dir), r.procs()), nil
}

// folders makes the state directory's folders with their modes: the records' (tasks/), the
// agent's alone, and the tasks' own (runs/), which a task's account may pass through to its
// own folder but nobody lists; the state directory itself is passed through the same way.
func (r SupervisedRunner) folders(dir string) error {
	for _, f := range []struct {
		path string
		mode os.FileMode
	}{{r.StateDir, 0o711}, {filepath.Join(r.StateDir, "tasks"), 0o700}, {filepath.Join(r.StateDir, "runs"), 0o711}, {dir, 0o700}} {
		if err := os.MkdirAll(f.path, f.mode); err != nil {
			return err
		}
		if err := os.Chmod(f.path, f.mode); err != nil {
			return err
		}
	}
	return nil
}

// ownFolder makes a task's own folder and its empty log, 0700 and 0600, the account's; a
// folder made before (a restarted replica) is kept.
func ownFolder(path string, ra *runAs) error {
	if err := os.Mkdir(path, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	if fi, err := os.Lstat(path); err != nil || !fi.IsDir() {
		return fmt.Errorf("%s is not a folder", path)
	}
	log, err := openTaskFile(filepath.Join(path, LogFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND)
	if err != nil {
		return fmt.Errorf("log file: %w", err)
	}
	defer log.Close()
	if ra == nil {
		return nil
	}
	if err := log.Chown(int(ra.UID), int(ra.GID)); err != nil {
		return err
	}
	return ra.chown(path)
}

// Adopt returns the tasks of the state directory: running ones to watch and stop, ended ones
// to report, and reported ones not to start again. A folder of a task that never started is
// removed, so the task may start now.
func (r SupervisedRunner) Adopt() ([]Adopted, error) {
	entries, err := os.ReadDir(filepath.Join(r.StateDir, "tasks"))
	if isNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("agent: state dir: %w", err)
	}
	var out []Adopted
	for _, e := range entries {
		id, err := strconv.ParseInt(e.Name(), 10, 64)
		if err != nil || !e.IsDir() {
			continue
		}
		dir := taskDir(r.StateDir, id)
		var spec taskSpec
		if err := readJSON(dir, specFile, &spec); err != nil {
			if !isNotExist(err) {
				return nil, fmt.Errorf("agent: task %d: %w", id, err)
			}
			os.RemoveAll(dir) // the agent stopped before writing the spec: never started
			continue
		}
		ad := Adopted{TaskID: id, GPUUUIDs: spec.Assignment.GPUUUIDs, Attempt: spec.Assignment.Attempt, Reported: exists(dir, reportedFile)}
		own := spec.logDir(dir)
		if !ad.Reported {
			if !exists(dir, exitFile) && !exists(dir, startedFile) {
				lock, held, err := tryLock(dir)
				if err != nil {
					return nil, fmt.Errorf("agent: task %d: %w", id, err)
				}
				if !held {
					lock.Close()
					os.RemoveAll(dir) // the supervisor never ran the command
					continue
				}
			}
			ad.Proc = watch(dir, own, r.procs())
		}
		out = append(out, ad)
	}
	return out, nil
}

// Reported records that a task's exit is queued for the server, and removes the folders of
// tasks reported more than keepReported before now.
func (r SupervisedRunner) Reported(id int64, now time.Time) error {
	dir := taskDir(r.StateDir, id)
	if !exists(dir, specFile) {
		return nil // it never got a folder (e.g. an empty command)
	}
	if err := os.WriteFile(filepath.Join(dir, reportedFile), nil, 0o644); err != nil {
		return fmt.Errorf("agent: task %d: %w", id, err)
	}
	entries, _ := os.ReadDir(filepath.Join(r.StateDir, "tasks"))
	for _, e := range entries {
		fi, err := os.Stat(filepath.Join(r.StateDir, "tasks", e.Name(), reportedFile))
		if err == nil && now.Sub(fi.ModTime()) > keepReported {
			os.RemoveAll(filepath.Join(r.StateDir, "runs", e.Name()))
			os.RemoveAll(filepath.Join(r.StateDir, "tasks", e.Name()))
		}
	}
	return nil
}

// supervisedProcess is a task run by a supervisor, with its records in dir and its log and
// output file in own. code and err are set before done closes.
type supervisedProcess struct {
	dir, own string
	procs    procFS
	done     chan struct{}
	code     int
	err      error
	stopOnce sync.Once
}

// watch returns the process of a task folder; it ends when the supervisor's lock is free.
func watch(dir, own string, procs procFS) *supervisedProcess {
	p := &supervisedProcess{dir: dir, own: own, procs: procs, done: make(chan struct{})}
	go func() {
		p.code, p.err = finished(dir)
		close(p.done)
	}()
	return p
}

// finished waits for a task's supervisor to end and returns the recorded exit, a
// *MemoryLimitError when the kernel stopped the task for its memory. A supervisor that ended
// without one (killed) leaves its command's group and cgroup killed and exit code -1.
func finished(dir string) (int, error) {
	if err := waitUnlocked(dir); err != nil {
		return -1, fmt.Errorf("wait for supervisor: %w", err)
	}
	var rec exitRecord
	err := readJSON(dir, exitFile, &rec)
	switch {
	case err == nil && rec.StartError != "":
		return -1, errors.New("failed to start: " + rec.StartError)
	case err == nil && rec.MemoryLimitMiB > 0:
		return rec.ExitCode, &MemoryLimitError{LimitMiB: rec.MemoryLimitMiB}
	case err == nil && rec.Error != "":
		return rec.ExitCode, errors.New(rec.Error)
	case err == nil:
		return rec.ExitCode, nil
	case !isNotExist(err):
		return -1, err
	}
	var started startedRecord
	if readJSON(dir, startedFile, &started) == nil && started.BootID == bootID() && started.PID > 0 {
		syscall.Kill(-started.PID, syscall.SIGKILL)
	}
	var spec taskSpec
	if readJSON(dir, specFile, &spec) == nil && spec.Container != nil {
		spec.Container.kill(spec.Assignment.TaskID, syscall.SIGKILL)
	}
	if spec.Cgroup != nil {
		spec.Cgroup.end(0)
	}
	return -1, errors.New("the supervisor ended without recording an exit (killed, or the node restarted)")
}

// OwnsPID reports whether pid descends from the task's supervisor, which is also the
// subreaper of the task's orphans, or runs in the task's container: a container's processes
// are children of the runtime's shim, not of the supervisor, and are told by the container's
// id in their cgroup path.
func (p *supervisedProcess) OwnsPID(pid uint32) bool {
	var rec supervisorRecord
	if readJSON(p.dir, supervisorFile, &rec) == nil && rec.PID > 0 && p.procs.descends(int(pid), rec.PID) {
		return true
	}
	id, ok := readContainerID(p.dir)
	return ok && p.procs.inContainer(int(pid), id)
}

// OutputPaths returns the task's log and output file.
func (p *supervisedProcess) OutputPaths() (string, string) {
	return filepath.Join(p.own, LogFile), filepath.Join(p.own, outputUnitsFile)
}

// Wait returns the exit code once the task has ended.
func (p *supervisedProcess) Wait() (int, error) {
	<-p.done
	return p.code, p.err
}

// Stop sends SIGTERM to the supervisor, which passes it to the command's process group and
// kills the group after its grace. Should the supervisor not end within grace (plus killWait),
// Stop kills the group itself.
func (p *supervisedProcess) Stop(grace time.Duration) {
	p.stopOnce.Do(func() {
		if pid := p.supervisorPID(); pid > 0 {
			syscall.Kill(pid, syscall.SIGTERM)
		}
		select {
		case <-p.done:
			return
		case <-time.After(grace + killWait):
		}
		var started startedRecord
		if readJSON(p.dir, startedFile, &started) == nil && started.PID > 0 {
			syscall.Kill(-started.PID, syscall.SIGKILL)
		}
		select {
		case <-p.done:
		case <-time.After(killWait):
		}
	})
}

// supervisorPID reads the supervisor's pid, waiting up to killWait for a supervisor that is
// still starting; 0 when the task ended meanwhile or the pid never appeared.
func (p *supervisedProcess) supervisorPID() int {
	deadline := time.After(killWait)
	for {
		var rec supervisorRecord
		if readJSON(p.dir, supervisorFile, &rec) == nil {
			return rec.PID
		}
		select {
		case <-p.done:
			return 0
		case <-deadline:
			return 0
		case <-time.After(10 * time.Millisecond):
		}
	}
}
