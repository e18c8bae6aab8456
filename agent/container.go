package agent

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"kashi/api"
)

// Container runtimes a task's image may run with.
const (
	RuntimeDocker  = "docker"
	RuntimePodman  = "podman"
	RuntimeNerdctl = "nerdctl"
)

// containerTaskDir is where a container sees its task's own folder (for KASHI_OUTPUT_FILE).
const containerTaskDir = "/kashi-task"

// ContainerConfig says how the tasks that name an image run on this node.
type ContainerConfig struct {
	// Runtime is docker, podman or nerdctl.
	Runtime string `json:"runtime"`
	// Path is the runtime's program; "" looks Runtime up on PATH.
	Path string `json:"path,omitempty"`
	// Mounts are the data mounts every task container gets, "host:container[:ro]".
	Mounts []string `json:"mounts,omitempty"`
}

// Check reports a runtime this agent does not know, or a malformed mount.
func (c ContainerConfig) Check() error {
	switch c.Runtime {
	case RuntimeDocker, RuntimePodman, RuntimeNerdctl:
	default:
		return fmt.Errorf("container runtime must be docker, podman or nerdctl, got %q", c.Runtime)
	}
	for _, m := range c.Mounts {
		if _, err := mountTarget(m); err != nil {
			return err
		}
	}
	return nil
}

// mountTarget returns the container path of a mount "/host:/container[:ro|:rw]".
func mountTarget(m string) (string, error) {
	f := strings.Split(m, ":")
	if len(f) < 2 || len(f) > 3 || !filepath.IsAbs(f[0]) || !filepath.IsAbs(f[1]) || (len(f) == 3 && f[2] != "ro" && f[2] != "rw") {
		return "", fmt.Errorf("container mount %q is not /host/path:/container/path[:ro]", m)
	}
	return filepath.Clean(f[1]), nil
}

// mounts are a task container's data mounts: its pool's (sent with the assignment), each
// replaced by the node's own mount (--container-mounts) at the same container path, then the
// node's other mounts. A malformed pool mount is an error.
func (c ContainerConfig) mounts(a api.Assignment) ([]string, error) {
	node := make(map[string]string, len(c.Mounts))
	for _, m := range c.Mounts {
		target, _ := mountTarget(m) // checked when the agent started
		node[target] = m
	}
	var out []string
	for _, m := range a.Mounts {
		target, err := mountTarget(m)
		if err != nil {
			return nil, err
		}
		if _, replaced := node[target]; !replaced {
			out = append(out, m)
		}
	}
	return append(out, c.Mounts...), nil
}

// program is the runtime's executable.
func (c ContainerConfig) program() string {
	if c.Path != "" {
		return c.Path
	}
	return c.Runtime
}

// containerIDFile is the file of a task folder where the runtime writes its container's id
// (--cidfile), by which the container's processes are told on the GPUs.
const containerIDFile = "container.id"

// containerIDRE is a full container id as docker, podman and nerdctl write it.
var containerIDRE = regexp.MustCompile(`^[0-9a-f]{64}$`)

// readContainerID returns the id of the task's container, once the runtime has written it.
func readContainerID(dir string) (string, bool) {
	b, err := os.ReadFile(filepath.Join(dir, containerIDFile))
	id := strings.TrimSpace(string(b))
	return id, err == nil && containerIDRE.MatchString(id)
}

// containerName names a task's container, so that it can be stopped by name.
func containerName(id int64) string { return "kashi-task-" + strconv.FormatInt(id, 10) }

// runArgv is the runtime command that runs the task in its image as its account (ra; nil
// for the image's own user) with only its GPUs (by CDI device name for podman, --gpus
// device= for docker and nerdctl), its memory and CPU limits, its env and workdir, its data
// mounts (see mounts) and its own folder own at containerTaskDir; the runtime writes the
// container's id into the records' folder dir.
func (c ContainerConfig) runArgv(dir, own string, ra *runAs, a api.Assignment) ([]string, error) {
	mounts, err := c.mounts(a)
	if err != nil {
		return nil, err
	}
	argv := []string{c.program(), "run", "--rm", "--init", "--name", containerName(a.TaskID),
		"--label", "kashi.task=" + strconv.FormatInt(a.TaskID, 10), "--cidfile", filepath.Join(dir, containerIDFile)}
	argv = append(argv, ra.userFlags()...)
	if a.MemoryLimitMiB > 0 {
		m := strconv.FormatInt(a.MemoryLimitMiB, 10) + "m"
		argv = append(argv, "--memory", m, "--memory-swap", m)
	}
	if a.CPULimitMillis > 0 {
		argv = append(argv, "--cpus", strconv.FormatFloat(float64(a.CPULimitMillis)/1000, 'f', -1, 64))
	}
	if len(a.GPUUUIDs) > 0 {
		if c.Runtime == RuntimePodman {
			for _, u := range a.GPUUUIDs {
				argv = append(argv, "--device", "nvidia.com/gpu="+u)
			}
		} else {
			argv = append(argv, "--gpus", `"device=`+strings.Join(a.GPUUUIDs, ",")+`"`)
		}
	}
	for _, kv := range TorchrunEnv(a) {
		argv = append(argv, "--env", kv)
	}
	for _, k := range slices.Sorted(maps.Keys(a.Env)) {
		argv = append(argv, "--env", k+"="+a.Env[k])
	}
	for _, kv := range KashiEnv(a) {
		argv = append(argv, "--env", kv)
	}
	argv = append(argv, "--env", "CUDA_VISIBLE_DEVICES=all", // the container sees only its GPUs
		"--env", "KASHI_OUTPUT_FILE="+containerTaskDir+"/"+outputUnitsFile,
		"--volume", own+":"+containerTaskDir)
	for _, m := range mounts {
		argv = append(argv, "--volume", m)
	}
	if a.MetricsPort > 0 { // the replica's port on the node's loopback, where the agent scrapes it
		p := strconv.Itoa(a.MetricsPort)
		argv = append(argv, "--publish", "127.0.0.1:"+p+":"+p)
	}
	if a.Workdir != "" {
		argv = append(argv, "--workdir", a.Workdir)
	}
	argv = append(argv, a.Image)
	return append(argv, a.Command...), nil
}

// kill sends sig (SIGTERM or SIGKILL) to a task's container through the runtime, and reports the runtime's error.
func (c ContainerConfig) kill(id int64, sig syscall.Signal) error {
	name := "KILL"
	if sig == syscall.SIGTERM {
		name = "TERM"
	}
	cmd := exec.Command(c.program(), "kill", "--signal", name, containerName(id))
	cmd.Env = os.Environ()
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(killWait):
		cmd.Process.Kill()
		return fmt.Errorf("%s kill %s: no answer in %s", c.Runtime, containerName(id), killWait)
	}
}
