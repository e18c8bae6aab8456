package agent

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/api"
)

// fakeRuntime writes a container runtime that records each call's argv, one line per call,
// in <dir>/calls. Its "run" writes a container id to the --cidfile and starts the container:
// a process of its own session (as under a real runtime's shim, outside the supervisor's
// process group) that prints a line and ignores SIGTERM; the client waits for it. "kill
// --signal TERM|KILL" signals the container. With <dir>/client-crash, the client exits 3 once
// the container runs. "pull" returns at once, or while <dir>/hold-pull
// exists, waits for <dir>/release-pull.
func fakeRuntime(t *testing.T) (path, calls string) {
	t.Helper()
	dir := t.TempDir()
	path, calls = filepath.Join(dir, "fake-runtime"), filepath.Join(dir, "calls")
	script := `#!/bin/sh
d=$(dirname "$0")
printf '%s\n' "$*" >> "$d/calls"
case "$1" in
run)
	while [ $# -gt 0 ]; do
		[ "$1" = --cidfile ] && printf '%064x\n' 21 > "$2"
		shift
	done
	trap 'echo TERM-ignored-by-client >> "$d/calls"' TERM
	setsid sh -c 'trap "echo TERM-ignored >> $1/calls" TERM; echo $$ > $1/container.pid; echo "hello from the container"; while :; do sleep 0.02; done' - "$d" &
	while [ ! -s "$d/container.pid" ]; do sleep 0.01; done
	read c < "$d/container.pid"
	[ -e "$d/client-crash" ] && exit 3
	echo "$c" > "$d/watching"
	while kill -0 "$c" 2>/dev/null; do sleep 0.02; done
	exit 137 ;;
kill)
	[ "$3" = KILL ] && kill -9 "$(cat "$d/container.pid")"
	[ "$3" = TERM ] && kill -TERM "$(cat "$d/container.pid")" ;;
pull)
	if [ -e "$d/hold-pull" ]; then
		while [ ! -e "$d/release-pull" ]; do sleep 0.01; done
	fi ;;
esac
exit 0
`
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path, calls
}

func TestContainerRunArgv(t *testing.T) {
	a := api.Assignment{TaskID: 21, GPUUUIDs: []string{"GPU-a", "GPU-b"}, Image: "nvcr.io/nvidia/pytorch:24.05-py3",
		Command: []string{"python", "train.py"}, Env: map[string]string{"SEED": "7"}, Workdir: "/work"}
	common := func(program string, gpus ...string) []string {
		argv := append([]string{program, "run", "--rm", "--init", "--name", "kashi-task-21", "--label", "kashi.task=21",
			"--cidfile", "/state/tasks/21/container.id"}, gpus...)
		return append(argv, "--env", "SEED=7", "--env", "CUDA_VISIBLE_DEVICES=all",
			"--env", "KASHI_OUTPUT_FILE=/kashi-task/output", "--volume", "/state/runs/21:/kashi-task",
			"--volume", "/data:/data:ro", "--workdir", "/work", "nvcr.io/nvidia/pytorch:24.05-py3", "python", "train.py")
	}
	tests := map[string]struct {
		c    ContainerConfig
		want []string
	}{
		"docker, --gpus":  {ContainerConfig{Runtime: RuntimeDocker}, common("docker", "--gpus", `"device=GPU-a,GPU-b"`)},
		"nerdctl, --gpus": {ContainerConfig{Runtime: RuntimeNerdctl}, common("nerdctl", "--gpus", `"device=GPU-a,GPU-b"`)},
		"podman, CDI": {ContainerConfig{Runtime: RuntimePodman, Path: "/usr/bin/podman"},
			common("/usr/bin/podman", "--device", "nvidia.com/gpu=GPU-a", "--device", "nvidia.com/gpu=GPU-b")},
	}
	shaped := a
	shaped.NodeRank, shaped.NNodes, shaped.WorldSize, shaped.Rank, shaped.MasterAddr, shaped.MasterPort = 1, 2, 4, 2, "n1", 29521
	want := []string{"docker", "run", "--rm", "--init", "--name", "kashi-task-21", "--label", "kashi.task=21", "--cidfile", "/state/tasks/21/container.id",
		"--gpus", `"device=GPU-a,GPU-b"`, "--env", "MASTER_ADDR=n1", "--env", "MASTER_PORT=29521", "--env", "NNODES=2",
		"--env", "NODE_RANK=1", "--env", "SEED=7", "--env", "KASHI_RANK=2", "--env", "KASHI_NODE_RANK=1",
		"--env", "KASHI_WORLD_SIZE=4", "--env", "KASHI_NNODES=2", "--env", "KASHI_MASTER_ADDR=n1",
		"--env", "KASHI_MASTER_PORT=29521", "--env", "CUDA_VISIBLE_DEVICES=all",
		"--env", "KASHI_OUTPUT_FILE=/kashi-task/output", "--volume", "/state/runs/21:/kashi-task",
		"--volume", "/data:/data:ro", "--workdir", "/work", "nvcr.io/nvidia/pytorch:24.05-py3", "python", "train.py"}
	c := ContainerConfig{Runtime: RuntimeDocker, Mounts: []string{"/data:/data:ro"}}
	if diff := cmp.Diff(want, mustArgv(t, c, "/state/tasks/21", shaped)); diff != "" {
		t.Errorf("runArgv of rank 1 of two nodes (-want +got):\n%s", diff)
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			tc.c.Mounts = []string{"/data:/data:ro"}
			if diff := cmp.Diff(tc.want, mustArgv(t, tc.c, "/state/tasks/21", a)); diff != "" {
				t.Errorf("runArgv (-want +got):\n%s", diff)
			}
		})
	}
}

// mustArgv is c.runArgv of a task of the agent's own user with its records in dir
// (/state/tasks/<id>), which must not fail.
func mustArgv(t *testing.T, c ContainerConfig, dir string, a api.Assignment) []string {
	t.Helper()
	argv, err := c.runArgv(dir, strings.Replace(dir, "/tasks/", "/runs/", 1), nil, a)
	if err != nil {
		t.Fatalf("runArgv() = %v", err)
	}
	return argv
}

// TestContainerMountsPoolAndNode: the pool's mounts come with the assignment; the node's
// --container-mounts replace a pool mount at the same container path and add the others.
func TestContainerMountsPoolAndNode(t *testing.T) {
	c := ContainerConfig{Runtime: RuntimeDocker, Mounts: []string{"/mnt/nvme/data:/data/", "/scratch:/scratch"}}
	a := api.Assignment{TaskID: 3, Image: "busybox:1.36", Mounts: []string{"/data:/data:ro", "/models:/models:ro"}}
	var got []string
	argv := mustArgv(t, c, "/state/tasks/3", a)
	for i, arg := range argv {
		if arg == "--volume" {
			got = append(got, argv[i+1])
		}
	}
	want := []string{"/state/runs/3:/kashi-task", "/models:/models:ro", "/mnt/nvme/data:/data/", "/scratch:/scratch"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("volumes (-want +got):\n%s", diff)
	}
	a.Mounts = []string{"models:/models"}
	if _, err := c.runArgv("/state/tasks/3", "/state/runs/3", nil, a); err == nil || !strings.Contains(err.Error(), `"models:/models"`) {
		t.Errorf("runArgv() with a relative pool mount = %v, want an error naming it", err)
	}
}

func TestContainerConfigCheck(t *testing.T) {
	for name, c := range map[string]ContainerConfig{
		"unknown runtime": {Runtime: "lxc"},
		"relative mount":  {Runtime: RuntimeDocker, Mounts: []string{"data:/data"}},
		"bad mode":        {Runtime: RuntimeDocker, Mounts: []string{"/data:/data:rx"}},
	} {
		if err := c.Check(); err == nil {
			t.Errorf("%s: Check() = nil, want an error", name)
		}
	}
	if err := (ContainerConfig{Runtime: RuntimePodman, Mounts: []string{"/data:/data:ro", "/scratch:/scratch"}}).Check(); err != nil {
		t.Errorf("Check() of a good config = %v", err)
	}
}

// TestContainerStopAfterGrace: a container that ignores SIGTERM, running outside the
// supervisor's process group, is killed through the runtime after the grace.
func TestContainerStopAfterGrace(t *testing.T) {
	path, calls := fakeRuntime(t)
	r := SupervisedRunner{StateDir: t.TempDir(), Supervisor: testSupervisor(), Grace: 200 * time.Millisecond,
		Container: &ContainerConfig{Runtime: RuntimeDocker, Path: path}}
	a := api.Assignment{AllowRoot: true, TaskID: 21, GPUUUIDs: []string{"GPU-a"}, Image: "busybox:1.36", Command: []string{"sleep", "30"}}
	p, err := r.Start(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	pidFile := filepath.Join(filepath.Dir(path), "watching") // the client watches the container
	waitFile(t, pidFile)
	var container int
	for deadline := time.Now().Add(5 * time.Second); container == 0 && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		b, _ := os.ReadFile(pidFile)
		container, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	t.Cleanup(func() { killProcessGroup(container) })
	if id, ok := readContainerID(taskDir(r.StateDir, 21)); !ok || !strings.HasSuffix(id, "15") {
		t.Errorf("container id = %q, %v; want the one the runtime wrote to --cidfile", id, ok)
	}
	start := time.Now()
	p.Stop(r.Grace)
	if took := time.Since(start); took < r.Grace {
		t.Errorf("Stop() returned after %s, before the grace of %s", took, r.Grace)
	}
	if code, err := p.Wait(); code != 137 || err != nil {
		t.Errorf("Wait() = %d, %v; want 137 (killed after the grace), nil", code, err)
	}
	for deadline := time.Now().Add(5 * time.Second); groupAlive(t, container); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) { // its last sleep may outlive it by a moment
			t.Fatalf("the container (pid %d) still runs after Stop", container)
		}
	}
	b, _ := os.ReadFile(calls)
	got := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(got) < 4 || !strings.HasPrefix(got[0], "run --rm --init --name kashi-task-21") ||
		!strings.Contains(got[0], `--gpus "device=GPU-a" `) || !strings.HasSuffix(got[0], "busybox:1.36 sleep 30") {
		t.Fatalf("runtime calls = %q, want run with only the task's GPU first", got)
	}
	for _, want := range []string{"kill --signal TERM kashi-task-21", "TERM-ignored", "kill --signal KILL kashi-task-21"} {
		i := slices.Index(got, want)
		if i < 0 {
			t.Errorf("runtime calls lack %q:\n%s", want, b)
			continue
		}
		got = got[i+1:] // in this order
	}
	log, _ := os.ReadFile(filepath.Join(runDir(r.StateDir, 21), LogFile))
	if !strings.Contains(string(log), "hello from the container") {
		t.Errorf("task log = %q, want the container's output", log)
	}
}

// TestContainerKilledWhenClientDies: when the runtime's client ends while its container still
// runs, the supervisor kills the container, so that nothing holds the task's GPUs after its
// exit is recorded.
func TestContainerKilledWhenClientDies(t *testing.T) {
	path, calls := fakeRuntime(t)
	os.WriteFile(filepath.Join(filepath.Dir(path), "client-crash"), nil, 0o644)
	r := SupervisedRunner{StateDir: t.TempDir(), Supervisor: testSupervisor(), Grace: time.Second,
		Container: &ContainerConfig{Runtime: RuntimePodman, Path: path}}
	p, err := r.Start(context.Background(), api.Assignment{AllowRoot: true, TaskID: 21, Image: "busybox:1.36", Command: []string{"sleep", "30"}})
	if err != nil {
		t.Fatal(err)
	}
	if code, err := p.Wait(); code != 3 || err != nil {
		t.Errorf("Wait() = %d, %v; want the client's 3", code, err)
	}
	b, _ := os.ReadFile(filepath.Join(filepath.Dir(path), "container.pid"))
	container, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	t.Cleanup(func() { killProcessGroup(container) })
	for deadline := time.Now().Add(5 * time.Second); groupAlive(t, container); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the container (pid %d) outlived its client", container)
		}
	}
	if b, _ := os.ReadFile(calls); !strings.Contains(string(b), "kill --signal KILL kashi-task-21\n") {
		t.Errorf("runtime calls = %s, want the container killed", b)
	}
}

func TestContainerImageWithoutRuntime(t *testing.T) {
	r := SupervisedRunner{StateDir: t.TempDir(), Supervisor: testSupervisor(), Grace: time.Second}
	_, err := r.Start(context.Background(), api.Assignment{AllowRoot: true, TaskID: 22, Image: "busybox:1.36", Command: []string{"true"}})
	if err == nil || !strings.Contains(err.Error(), "no container runtime") {
		t.Errorf("Start() = %v, want a failed start naming the missing runtime", err)
	}
}

// TestContainerRealRuntime runs a container with a real runtime where one works and already
// holds busybox (nothing is pulled); elsewhere it is skipped.
func TestContainerRealRuntime(t *testing.T) {
	for _, rt := range []string{RuntimeDocker, RuntimePodman, RuntimeNerdctl} {
		if exec.Command(rt, "image", "inspect", "busybox:latest").Run() != nil {
			continue
		}
		r := SupervisedRunner{StateDir: t.TempDir(), Supervisor: testSupervisor(), Grace: time.Second,
			Container: &ContainerConfig{Runtime: rt}}
		p, err := r.Start(context.Background(), api.Assignment{AllowRoot: true, TaskID: 23, Image: "busybox:latest",
			Command: []string{"sh", "-c", "echo KASHI_OUTPUT 3 steps; exit 4"}})
		if err != nil {
			t.Fatalf("%s: Start() = %v", rt, err)
		}
		if code, err := p.Wait(); code != 4 || err != nil {
			t.Errorf("%s: Wait() = %d, %v; want 4", rt, code, err)
		}
		return
	}
	t.Skip("no container runtime with busybox:latest here")
}

// TestContainerRunsAsItsAccount: a task in an image runs as its account (--user uid:gid,
// --group-add for its other groups) within its limits (--memory, swap included, and --cpus),
// with its own folder at /kashi-task.
func TestContainerRunsAsItsAccount(t *testing.T) {
	c := ContainerConfig{Runtime: RuntimePodman}
	ra := &runAs{User: "alice", UID: 1001, GID: 1001, Groups: []uint32{1001, 27, 44}}
	a := api.Assignment{TaskID: 4, Image: "busybox:1.36", Command: []string{"id"}, MemoryLimitMiB: 16384, CPULimitMillis: 2500}
	argv, err := c.runArgv("/state/tasks/4", "/state/runs/4", ra, a)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(argv, " ")
	for _, want := range []string{"--user 1001:1001 --group-add 27 --group-add 44 ", "--memory 16384m --memory-swap 16384m --cpus 2.5 ",
		"--volume /state/runs/4:/kashi-task ", " busybox:1.36 id"} {
		if !strings.Contains(got, want) {
			t.Errorf("runArgv() = %s\nwant it to hold %q", got, want)
		}
	}
	if argv, _ := c.runArgv("/state/tasks/4", "/state/runs/4", nil, api.Assignment{TaskID: 4, Image: "busybox:1.36"}); slices.Contains(argv, "--user") {
		t.Errorf("runArgv() of a task of the agent's own user = %v, want the image's user", argv)
	}
}
