package agent

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"kashi/api"
)

// startExec starts a with an ExecRunner logging to a temporary directory.
func startExec(t *testing.T, a api.Assignment) (Process, string) {
	t.Helper()
	logDir := t.TempDir()
	p, err := ExecRunner{LogDir: logDir}.Start(context.Background(), a)
	if err != nil {
		t.Fatalf("Start(%q) = %v", a.Command, err)
	}
	t.Cleanup(func() { p.Stop(0) })
	return p, logDir
}

func TestExecRunnerExitCode(t *testing.T) {
	p, logDir := startExec(t, api.Assignment{TaskID: 1, Command: []string{"/bin/sh", "-c", "echo hello; echo oops >&2; exit 3"}})
	code, err := p.Wait()
	if code != 3 || err != nil {
		t.Errorf("Wait() = %d, %v, want 3, nil", code, err)
	}
	log, err := os.ReadFile(filepath.Join(logDir, "task-1.log"))
	if err != nil || string(log) != "hello\noops\n" {
		t.Errorf("task log = %q, %v, want stdout and stderr", log, err)
	}
}

func TestExecRunnerEnvAndWorkdir(t *testing.T) {
	dir := t.TempDir()
	p, _ := startExec(t, api.Assignment{
		TaskID:   2,
		GPUUUIDs: []string{"GPU-a", "GPU-b"},
		// CUDA_VISIBLE_DEVICES in Env must not win over the assigned GPUs.
		Env:     map[string]string{"KASHI_TEST_EPOCHS": "3", "CUDA_VISIBLE_DEVICES": "all"},
		Workdir: dir,
		Command: []string{"/bin/sh", "-c", "env > env.txt; pwd > pwd.txt"},
	})
	if code, err := p.Wait(); code != 0 || err != nil {
		t.Fatalf("Wait() = %d, %v, want 0, nil", code, err)
	}
	env, err := os.ReadFile(filepath.Join(dir, "env.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(env), "\n")
	for _, want := range []string{"KASHI_TEST_EPOCHS=3", "CUDA_VISIBLE_DEVICES=GPU-a,GPU-b", "PATH=" + os.Getenv("PATH")} {
		if !slices.Contains(lines, want) {
			t.Errorf("task env lacks %q; got:\n%s", want, env)
		}
	}
	if pwd, _ := os.ReadFile(filepath.Join(dir, "pwd.txt")); strings.TrimSpace(string(pwd)) != dir {
		t.Errorf("task ran in %q, want %q", pwd, dir)
	}
}

func TestExecRunnerStop(t *testing.T) {
	tests := map[string]struct {
		// command touches the file "ready" in its workdir once its signal handling is set.
		command  []string
		wantCode int
	}{
		"SIGTERM ends it":            {command: []string{"/bin/sh", "-c", "touch ready; exec sleep 30"}, wantCode: 143},
		"SIGKILL after grace":        {command: []string{"/bin/sh", "-c", `trap "" TERM; touch ready; sleep 30`}, wantCode: 137},
		"shell waiting on its child": {command: []string{"/bin/sh", "-c", "sleep 30 & touch ready; wait"}, wantCode: 143},
	}
	const grace = 200 * time.Millisecond
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			p, _ := startExec(t, api.Assignment{TaskID: 3, Command: tc.command, Workdir: dir})
			for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
				if _, err := os.Stat(filepath.Join(dir, "ready")); err == nil {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the task did not start")
				}
			}
			start := time.Now()
			p.Stop(grace)
			if took := time.Since(start); took > grace+2*time.Second {
				t.Errorf("Stop(%s) took %s", grace, took)
			}
			if code, err := p.Wait(); code != tc.wantCode || err != nil {
				t.Errorf("Wait() = %d, %v, want %d, nil", code, err, tc.wantCode)
			}
		})
	}
}

func TestExecRunnerFailsToStart(t *testing.T) {
	tests := map[string]api.Assignment{
		"missing binary":  {TaskID: 4, Command: []string{"kashi-no-such-binary"}},
		"empty command":   {TaskID: 4},
		"missing workdir": {TaskID: 4, Command: []string{"/bin/true"}, Workdir: "/nonexistent/kashi"},
	}
	for name, a := range tests {
		t.Run(name, func(t *testing.T) {
			p, err := ExecRunner{LogDir: t.TempDir()}.Start(context.Background(), a)
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
