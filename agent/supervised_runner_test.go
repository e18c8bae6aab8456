package agent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"kashi/api"
)

// startSupervised starts a under a SupervisedRunner over a temporary state directory, as the
// agent's own user (its pool allows it).
func startSupervised(t *testing.T, a api.Assignment, grace time.Duration) (Process, SupervisedRunner) {
	t.Helper()
	a.AllowRoot = true
	r := SupervisedRunner{StateDir: t.TempDir(), Supervisor: testSupervisor(), Grace: grace}
	p, err := r.Start(context.Background(), a)
	if err != nil {
		t.Fatalf("Start(%q) = %v", a.Command, err)
	}
	t.Cleanup(func() { p.Stop(0) })
	return p, r
}

func TestSupervisedRunnerExitCode(t *testing.T) {
	p, r := startSupervised(t, api.Assignment{AllowRoot: true, TaskID: 1, Command: []string{"/bin/sh", "-c", "echo hello; echo oops >&2; exit 3"}}, time.Second)
	code, err := p.Wait()
	if code != 3 || err != nil {
		t.Errorf("Wait() = %d, %v, want 3, nil", code, err)
	}
	log, err := os.ReadFile(filepath.Join(runDir(r.StateDir, 1), LogFile))
	if err != nil || string(log) != "hello\noops\n" {
		t.Errorf("task log = %q, %v, want stdout and stderr", log, err)
	}
}

func TestSupervisedRunnerEnvAndWorkdir(t *testing.T) {
	dir := t.TempDir()
	p, r := startSupervised(t, api.Assignment{
		TaskID:   2,
		GPUUUIDs: []string{"GPU-a", "GPU-b"},
		// CUDA_VISIBLE_DEVICES in Env must not win over the assigned GPUs.
		Env:     map[string]string{"KASHI_TEST_EPOCHS": "3", "CUDA_VISIBLE_DEVICES": "all"},
		Workdir: dir,
		Command: []string{"/bin/sh", "-c", "env > env.txt; pwd > pwd.txt"},
	}, time.Second)
	if code, err := p.Wait(); code != 0 || err != nil {
		t.Fatalf("Wait() = %d, %v, want 0, nil", code, err)
	}
	env, err := os.ReadFile(filepath.Join(dir, "env.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(env), "\n")
	for _, want := range []string{"KASHI_TEST_EPOCHS=3", "CUDA_VISIBLE_DEVICES=GPU-a,GPU-b", "PATH=" + os.Getenv("PATH"),
		"KASHI_OUTPUT_FILE=" + filepath.Join(runDir(r.StateDir, 2), outputUnitsFile)} {
		if !slices.Contains(lines, want) {
			t.Errorf("task env lacks %q; got:\n%s", want, env)
		}
	}
	if pwd, _ := os.ReadFile(filepath.Join(dir, "pwd.txt")); strings.TrimSpace(string(pwd)) != dir {
		t.Errorf("task ran in %q, want %q", pwd, dir)
	}
}

func TestSupervisedRunnerStop(t *testing.T) {
	tests := map[string]struct {
		// command touches the file "ready" in its workdir once its signal handling is set.
		command  []string
		wantCode int
	}{
		"SIGTERM ends it":     {command: []string{"/bin/sh", "-c", "touch ready; exec sleep 30"}, wantCode: 143},
		"SIGKILL after grace": {command: []string{"/bin/sh", "-c", `trap "" TERM; touch ready; while :; do sleep 0.05; done`}, wantCode: 137},
		// the child ignores SIGTERM too; the group's SIGKILL after the grace ends it.
		"whole group killed": {command: []string{"/bin/sh", "-c", `trap "" TERM; (trap "" TERM; sleep 30; touch survived) & touch ready; wait`}, wantCode: 137},
	}
	const grace = 200 * time.Millisecond
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			p, r := startSupervised(t, api.Assignment{AllowRoot: true, TaskID: 3, Command: tc.command, Workdir: dir}, grace)
			waitFile(t, filepath.Join(dir, "ready"))
			var started startedRecord
			if err := readJSON(taskDir(r.StateDir, 3), startedFile, &started); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			p.Stop(grace)
			if took := time.Since(start); took > grace+2*time.Second {
				t.Errorf("Stop(%s) took %s", grace, took)
			}
			if code, err := p.Wait(); code != tc.wantCode || err != nil {
				t.Errorf("Wait() = %d, %v, want %d, nil", code, err, tc.wantCode)
			}
			if groupAlive(t, started.PID) {
				t.Errorf("process group %d still has members after Stop", started.PID)
			}
		})
	}
}

func TestSupervisedRunnerFailsToStart(t *testing.T) {
	tests := map[string]api.Assignment{
		"missing binary":  {AllowRoot: true, TaskID: 4, Command: []string{"kashi-no-such-binary"}},
		"empty command":   {AllowRoot: true, TaskID: 4},
		"missing workdir": {AllowRoot: true, TaskID: 4, Command: []string{"/bin/true"}, Workdir: "/nonexistent/kashi"},
	}
	for name, a := range tests {
		t.Run(name, func(t *testing.T) {
			r := SupervisedRunner{StateDir: t.TempDir(), Supervisor: testSupervisor(), Grace: time.Second}
			p, err := r.Start(context.Background(), a)
			if err == nil {
				p.Stop(0)
				t.Fatalf("Start(%q) = nil error, want one", a.Command)
			}
			if !strings.HasPrefix(err.Error(), "agent: start task 4: ") {
				t.Errorf("Start() error = %q, want it to name the task", err)
			}
		})
	}
}

func TestSupervisedRunnerNeverStartsTwice(t *testing.T) {
	p, r := startSupervised(t, api.Assignment{AllowRoot: true, TaskID: 5, Command: []string{"/bin/true"}}, time.Second)
	p.Wait()
	_, err := r.Start(context.Background(), api.Assignment{AllowRoot: true, TaskID: 5, Command: []string{"/bin/true"}})
	if !errors.Is(err, ErrAlreadyStarted) {
		t.Errorf("second Start() = %v, want ErrAlreadyStarted", err)
	}
}

// TestSupervisedRunnerRerunsALaterAttempt: a later attempt of a task that ran here (a rerun
// placed on the node) starts in a folder of its own, the earlier one's set aside with its
// log; the same attempt again is never started twice.
func TestSupervisedRunnerRerunsALaterAttempt(t *testing.T) {
	first := api.Assignment{AllowRoot: true, TaskID: 8, Command: []string{"/bin/sh", "-c", "echo first; exit 1"}, Attempt: 1}
	p, r := startSupervised(t, first, time.Second)
	p.Wait()
	if _, err := r.Start(context.Background(), first); !errors.Is(err, ErrAlreadyStarted) {
		t.Errorf("Start() of the same attempt = %v, want ErrAlreadyStarted", err)
	}
	second := api.Assignment{AllowRoot: true, TaskID: 8, Command: []string{"/bin/sh", "-c", "echo resumed from $KASHI_RESUME_FROM"}, Attempt: 2, ResumeFrom: "/ckpt/7"}
	p2, err := r.Start(context.Background(), second)
	if err != nil {
		t.Fatalf("Start() of attempt 2 = %v", err)
	}
	if code, err := p2.Wait(); code != 0 || err != nil {
		t.Errorf("attempt 2 Wait() = %d, %v", code, err)
	}
	dir := runDir(r.StateDir, 8)
	if log, _ := os.ReadFile(filepath.Join(dir, LogFile)); string(log) != "resumed from /ckpt/7\n" {
		t.Errorf("attempt 2's log = %q, want its own", log)
	}
	if log, _ := os.ReadFile(filepath.Join(dir+".1", LogFile)); string(log) != "first\n" {
		t.Errorf("attempt 1's log set aside = %q", log)
	}
	ad, err := r.Adopt()
	if err != nil || len(ad) != 1 || ad[0].TaskID != 8 || ad[0].Attempt != 2 {
		t.Errorf("Adopt() = %+v, %v; want attempt 2 only", ad, err)
	}
	long := api.Assignment{AllowRoot: true, TaskID: 9, Command: []string{"/bin/sleep", "30"}, Attempt: 1}
	p3, err := r.Start(context.Background(), long)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p3.Stop(0) })
	long.Attempt = 2
	if _, err := r.Start(context.Background(), long); !errors.Is(err, ErrAlreadyStarted) {
		t.Errorf("Start() of attempt 2 while attempt 1 runs = %v, want ErrAlreadyStarted", err)
	}
}

// TestSupervisedRunnerRestarts: an ended task starts again in its folder, its log going on;
// one whose command still runs is not started twice.
func TestSupervisedRunnerRestarts(t *testing.T) {
	a := api.Assignment{AllowRoot: true, TaskID: 5, Command: []string{"/bin/sh", "-c", "echo run; exit 4"}, Restart: true}
	p, r := startSupervised(t, a, time.Second)
	p.Wait()
	p2, err := r.Restart(context.Background(), a)
	if err != nil {
		t.Fatalf("Restart() = %v", err)
	}
	if code, err := p2.Wait(); code != 4 || err != nil {
		t.Errorf("restarted Wait() = %d, %v, want 4, nil", code, err)
	}
	if log, err := os.ReadFile(filepath.Join(runDir(r.StateDir, 5), LogFile)); err != nil || string(log) != "run\nrun\n" {
		t.Errorf("task log = %q, %v, want both runs' lines", log, err)
	}

	long := api.Assignment{AllowRoot: true, TaskID: 6, Command: []string{"/bin/sleep", "30"}, Restart: true}
	p3, err := r.Start(context.Background(), long)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p3.Stop(0) })
	if _, err := r.Restart(context.Background(), long); !errors.Is(err, ErrAlreadyStarted) {
		t.Errorf("Restart() of a running task = %v, want ErrAlreadyStarted", err)
	}
}
