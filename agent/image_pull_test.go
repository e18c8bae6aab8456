package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kashi/api"
)

// TestPrePullBeforeTakingTasks: the images the server names at registration are pulled with
// the runtime, one after another, before the agent fetches its first assignment; samples go
// on meanwhile.
func TestPrePullBeforeTakingTasks(t *testing.T) {
	path, calls := fakeRuntime(t)
	dir := filepath.Dir(path)
	os.WriteFile(filepath.Join(dir, "hold-pull"), nil, 0o644)
	f := newFakeServer(t)
	f.with(func() {
		f.prePull = []string{"registry.example.com/team/train:1.2", "busybox:1.36"}
		f.assignments = []api.Assignment{{AllowRoot: true, TaskID: 30, GPUUUIDs: []string{"GPU-a"}, Image: "busybox:1.36", Command: []string{"sleep", "30"}}}
	})
	r := SupervisedRunner{StateDir: t.TempDir(), Supervisor: testSupervisor(), Grace: 50 * time.Millisecond,
		Container: &ContainerConfig{Runtime: RuntimeDocker, Path: path}}
	stop := runAgent(t, newTestAgent(t, f, r))
	t.Cleanup(func() { killContainer(dir) })

	f.waitFor(t, "samples while the first pull runs", func() bool { return len(f.samples) >= 4 })
	f.with(func() {
		if f.polls != 0 {
			t.Errorf("assignments fetched %d times while pulling, want none", f.polls)
		}
	})
	os.WriteFile(filepath.Join(dir, "release-pull"), nil, 0o644)
	f.waitFor(t, "the task running", func() bool { return len(f.statuses) > 0 })
	waitFile(t, filepath.Join(dir, "watching"))
	f.with(func() { f.assignments = nil })
	f.waitFor(t, "the task stopped", f.lastExited)
	stop()
	b, _ := os.ReadFile(calls)
	var verbs []string
	for line := range strings.Lines(string(b)) {
		if f := strings.Fields(line); len(f) > 1 && (f[0] == "pull" || f[0] == "run") {
			verbs = append(verbs, f[0]+" "+f[len(f)-1])
		}
	}
	want := "pull registry.example.com/team/train:1.2,pull busybox:1.36,run 30"
	if got := strings.Join(verbs, ","); got != want {
		t.Errorf("runtime calls = %s, want %s; statuses %+v", got, want, f.statuses)
	}
}

// TestPullRefusesAnOption: an image named like an option of the runtime is not pulled.
func TestPullRefusesAnOption(t *testing.T) {
	path, calls := fakeRuntime(t)
	r := SupervisedRunner{Container: &ContainerConfig{Runtime: RuntimeDocker, Path: path}}
	if err := r.Pull(t.Context(), "--all-tags=evil"); err == nil {
		t.Error("Pull(--all-tags=evil) = nil, want an error")
	}
	if b, _ := os.ReadFile(calls); len(b) != 0 {
		t.Errorf("runtime called: %s", b)
	}
}

// killContainer kills what is left of the fake runtime's container.
func killContainer(dir string) {
	b, _ := os.ReadFile(filepath.Join(dir, "container.pid"))
	var pid int
	for _, c := range strings.TrimSpace(string(b)) {
		pid = pid*10 + int(c-'0')
	}
	if pid > 0 {
		killProcessGroup(pid)
	}
}
