package agent

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"kashi/api"
)

// Supervise is the main of a task's supervisor, `kashi agent supervise <task-dir>`. The agent
// starts it in a session of its own with the task's lock held on fd 3 and a pipe on fd 4; it
// joins the task's cgroup, runs the task's command as the task's account in a process group
// of its own with its output in the task's log, writes "ok" (or the start error) to the
// pipe, and records the command's pid, then its exit status, in the task folder. SIGTERM
// stops the command: SIGTERM to its process group, and after the grace SIGKILL. At the end
// it kills what is left in the cgroup, whose OOM counter says whether the kernel stopped the
// task for its memory, and removes it. It outlives the agent, so tasks survive the agent's
// restarts.
func Supervise(dir string) error {
	syscall.CloseOnExec(3) // the lock stays with the supervisor, not the task
	syscall.CloseOnExec(4)
	lock := os.NewFile(3, "lock")
	defer lock.Close()
	ready := os.NewFile(4, "ready")
	if err := writeJSON(dir, supervisorFile, supervisorRecord{PID: os.Getpid()}); err != nil {
		ready.Close()
		return fmt.Errorf("supervise %s: %w", dir, err)
	}
	// Orphans of the task become the supervisor's children, so it can reap them at the end.
	unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	sigc := make(chan os.Signal, 4)
	signal.Notify(sigc, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)

	var spec taskSpec
	cmd, err := func() (*exec.Cmd, error) {
		if err := readJSON(dir, specFile, &spec); err != nil {
			return nil, err
		}
		if spec.Cgroup != nil {
			if err := spec.Cgroup.join(os.Getpid()); err != nil {
				return nil, err
			}
		}
		return startCommand(dir, spec)
	}()
	if err != nil {
		if spec.Cgroup != nil {
			spec.Cgroup.end(os.Getpid())
		}
		werr := writeJSON(dir, exitFile, exitRecord{ExitCode: -1, EndedAt: time.Now().UTC(), StartError: err.Error()})
		fmt.Fprint(ready, err.Error())
		ready.Close()
		return errors.Join(err, werr)
	}
	pid := cmd.Process.Pid
	if spec.Cgroup != nil {
		// The OOM killer of the task's cgroup picks among the task's processes, never the
		// supervisor (the command, started already, keeps its own score).
		os.WriteFile("/proc/self/oom_score_adj", []byte("-1000"), 0)
	}
	started := startedRecord{PID: pid, BootID: bootID(), StartedAt: time.Now().UTC()}
	if err := writeJSON(dir, startedFile, started); err != nil {
		syscall.Kill(-pid, syscall.SIGKILL)
	}
	fmt.Fprint(ready, "ok")
	ready.Close()

	signal := func(sig syscall.Signal) {
		syscall.Kill(-pid, sig)
		if spec.Container != nil {
			spec.Container.kill(spec.Assignment.TaskID, sig)
		}
	}
	code, waitErr := waitStoppable(cmd, sigc, spec.Grace, signal)
	rec := exitRecord{ExitCode: code, EndedAt: time.Now().UTC()}
	if g := spec.Cgroup; g != nil && code != 0 && g.MemoryMiB > 0 && g.oomKills() > 0 {
		rec.MemoryLimitMiB = g.MemoryMiB
	}
	reapGroup(pid)
	if spec.Container != nil {
		// The runtime's client is gone; its container (under the runtime's shim) must not
		// outlive it on the task's GPUs.
		spec.Container.kill(spec.Assignment.TaskID, syscall.SIGKILL)
	}
	var endErr error
	if spec.Cgroup != nil {
		endErr = spec.Cgroup.end(os.Getpid())
	}
	if waitErr != nil {
		rec.Error = waitErr.Error()
	}
	return errors.Join(writeJSON(dir, exitFile, rec), endErr)
}

// startCommand starts the spec's command as the task's account, or the container runtime that
// runs it in its image as that account, in its own process group, its output appended to the
// task's log.
func startCommand(dir string, spec taskSpec) (*exec.Cmd, error) {
	a := spec.Assignment
	switch {
	case len(a.Command) == 0 && a.Image == "":
		return nil, errors.New("empty command")
	case a.Image != "" && spec.Container == nil:
		return nil, fmt.Errorf("the task runs in image %s but this node has no container runtime (kashi agent --container-runtime)", a.Image)
	}
	own := spec.logDir(dir)
	logFile, err := openTaskFile(filepath.Join(own, LogFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND)
	if err != nil {
		return nil, fmt.Errorf("log file: %w", err)
	}
	defer logFile.Close() // the command has its own copy
	var cmd *exec.Cmd
	if a.Image != "" {
		argv, err := spec.Container.runArgv(dir, own, spec.RunAs, a)
		if err != nil {
			return nil, err
		}
		cmd = exec.Command(argv[0], argv[1:]...)
		cmd.Env = withoutAgentSecrets(os.Environ())
	} else {
		cmd = exec.Command(a.Command[0], a.Command[1:]...)
		cmd.Dir = a.Workdir
		cmd.Env = taskEnv(a, spec.RunAs.env(os.Environ()), filepath.Join(own, outputUnitsFile))
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if a.Image == "" {
		cmd.SysProcAttr.Credential = spec.RunAs.credential()
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return cmd, nil
}

// waitStoppable waits for cmd to exit. The first signal on sigc sends SIGTERM through signal
// (to the command's process group, and its container), and grace later SIGKILL.
func waitStoppable(cmd *exec.Cmd, sigc <-chan os.Signal, grace time.Duration, signal func(syscall.Signal)) (int, error) {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var kill <-chan time.Time
	for {
		select {
		case err := <-done:
			return exitCode(err)
		case <-sigc:
			if kill == nil {
				signal(syscall.SIGTERM)
				kill = time.After(grace)
			}
		case <-kill:
			signal(syscall.SIGKILL)
		}
	}
}

// reapGroup kills what the command left running in its process group and waits, up to
// killWait, until the group is gone, reaping its members (orphans are the supervisor's).
func reapGroup(pgid int) {
	syscall.Kill(-pgid, syscall.SIGKILL)
	for deadline := time.Now().Add(killWait); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		for {
			if pid, _ := syscall.Wait4(-1, nil, syscall.WNOHANG, nil); pid <= 0 {
				break
			}
		}
		if errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH) {
			return
		}
	}
}

// taskEnv is base (the supervisor's environment as the task's account has it), the task's
// shape as torchrun names it, the task's env, then the variables the task cannot override:
// the KASHI_ shape, CUDA_VISIBLE_DEVICES and KASHI_OUTPUT_FILE. Later entries win.
func taskEnv(a api.Assignment, base []string, outputFile string) []string {
	env := append(base, TorchrunEnv(a)...)
	for _, k := range slices.Sorted(maps.Keys(a.Env)) {
		env = append(env, k+"="+a.Env[k])
	}
	env = append(env, KashiEnv(a)...)
	return append(env, "CUDA_VISIBLE_DEVICES="+strings.Join(a.GPUUUIDs, ","), "KASHI_OUTPUT_FILE="+outputFile)
}

// exitCode turns cmd.Wait's result into an exit code; a process killed by a signal exits
// with 128 plus the signal number, as shells report it.
func exitCode(err error) (int, error) {
	if err == nil {
		return 0, nil
	}
	exitErr, ok := errors.AsType[*exec.ExitError](err)
	if !ok {
		return -1, fmt.Errorf("wait: %w", err)
	}
	if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), nil
	}
	return exitErr.ExitCode(), nil
}
