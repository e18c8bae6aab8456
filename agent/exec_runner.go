package agent

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"kashi/api"
)

// killWait bounds how long Stop waits after SIGKILL, for a process stuck in the kernel.
const killWait = 5 * time.Second

// ExecRunner runs a task's command as a child process of the agent, in its own process group,
// with the task's GPUs in CUDA_VISIBLE_DEVICES and its output in a log file per task.
type ExecRunner struct {
	// LogDir holds the log files, task-<id>.log; "" means os.TempDir()/kashi-agent.
	LogDir string
}

// Start runs a.Command as argv (no shell unless the command is one) in a.Workdir, with the
// agent's environment plus a.Env and CUDA_VISIBLE_DEVICES set to a.GPUUUIDs.
func (r ExecRunner) Start(ctx context.Context, a api.Assignment) (Process, error) {
	if len(a.Command) == 0 {
		return nil, fmt.Errorf("agent: start task %d: empty command", a.TaskID)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("agent: start task %d: %w", a.TaskID, err)
	}
	dir := r.LogDir
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "kashi-agent")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("agent: start task %d: log dir: %w", a.TaskID, err)
	}
	logFile, err := os.OpenFile(filepath.Join(dir, fmt.Sprintf("task-%d.log", a.TaskID)), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("agent: start task %d: log file: %w", a.TaskID, err)
	}
	cmd := exec.Command(a.Command[0], a.Command[1:]...)
	cmd.Dir = a.Workdir
	cmd.Env = taskEnv(a)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("agent: start task %d: %w", a.TaskID, err)
	}
	p := &execProcess{cmd: cmd, done: make(chan struct{})}
	go func() {
		p.code, p.err = exitCode(cmd.Wait())
		logFile.Close()
		close(p.done)
	}()
	return p, nil
}

// taskEnv is the agent's environment plus the task's, then CUDA_VISIBLE_DEVICES, which the
// task cannot override. Later entries win.
func taskEnv(a api.Assignment) []string {
	env := os.Environ()
	for _, k := range slices.Sorted(maps.Keys(a.Env)) {
		env = append(env, k+"="+a.Env[k])
	}
	return append(env, "CUDA_VISIBLE_DEVICES="+strings.Join(a.GPUUUIDs, ","))
}

// exitCode turns cmd.Wait's result into an exit code; a process killed by a signal exits
// with 128 plus the signal number, as shells report it.
func exitCode(err error) (int, error) {
	if err == nil {
		return 0, nil
	}
	exitErr, ok := errors.AsType[*exec.ExitError](err)
	if !ok {
		return -1, fmt.Errorf("agent: wait: %w", err)
	}
	if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), nil
	}
	return exitErr.ExitCode(), nil
}

// execProcess is a process started by ExecRunner. code and err are set before done closes.
type execProcess struct {
	cmd      *exec.Cmd
	done     chan struct{}
	code     int
	err      error
	stopOnce sync.Once
}

// Wait returns the exit code once the process has exited.
func (p *execProcess) Wait() (int, error) {
	<-p.done
	return p.code, p.err
}

// Stop sends SIGTERM to the process group and waits up to grace for the process to exit, then
// sends SIGKILL to what is left of the group.
func (p *execProcess) Stop(grace time.Duration) {
	p.stopOnce.Do(func() {
		if p.exited() {
			return
		}
		pgid := p.cmd.Process.Pid // Setpgid made the process its group's leader
		syscall.Kill(-pgid, syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(grace):
		}
		syscall.Kill(-pgid, syscall.SIGKILL)
		select {
		case <-p.done:
		case <-time.After(killWait):
		}
	})
}

// exited reports whether the process has exited.
func (p *execProcess) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}
