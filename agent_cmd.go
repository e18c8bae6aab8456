package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"kashi/agent"
	"kashi/api"
)

// agentConfig is the configuration of `kashi agent`.
type agentConfig struct {
	Server         string
	JoinToken      string
	Pool           string
	Hostname       string
	MachineID      string
	StateDir       string
	LogLevel       string
	SampleInterval time.Duration
	PollInterval   time.Duration
	// AssignmentsWait is how long the server may hold a request for assignments; 0 polls.
	AssignmentsWait time.Duration
	StopGrace       time.Duration
	// HealthGrace is how long a service replica may take to answer its health probe first.
	HealthGrace time.Duration
	// Source is where GPU readings come from: nvml, or dcgm (a dcgm-exporter at DCGMURL).
	Source, DCGMURL string
	// ContainerRuntime (docker, podman, nerdctl; "" for none) runs tasks that name an image,
	// with ContainerMounts (comma-separated host:container[:ro]).
	ContainerRuntime, ContainerMounts string
	// CgroupParent is the cgroup, under each hierarchy's root, that holds each task's own;
	// "auto" the agent's own where it is delegated; "" runs tasks without cgroups or limits.
	CgroupParent string
	// Once and Print make the agent read the GPUs once, print a table and exit.
	Once, Print bool
}

func parseAgent(args []string, getenv func(string) string, stderr io.Writer) (agentConfig, error) {
	var c agentConfig
	f := newFlags("agent", getenv, stderr)
	f.String(&c.Server, "server", "http://127.0.0.1:8080", "the Kashi server's base URL")
	f.Secret(&c.JoinToken, "join-token", "the server's join token (required)")
	f.String(&c.Pool, "pool", "default", "the pool this node joins")
	f.String(&c.Hostname, "hostname", "", "the node's name (default: the host name)")
	f.String(&c.MachineID, "machine-id", "", "the provider's id of this machine, if any")
	f.String(&c.StateDir, "state-dir", "/var/lib/kashi-agent", "where the agent keeps its spool, its tasks' records (tasks/<id>/) and their own folders with their logs (runs/<id>/"+agent.LogFile+")")
	f.String(&c.LogLevel, "log-level", "info", "debug, info, warn or error")
	f.Duration(&c.SampleInterval, "sample-interval", 10*time.Second, "how often GPUs are read")
	f.Duration(&c.PollInterval, "poll-interval", 5*time.Second, "how often assignments are fetched from a server that does not wait for them")
	f.Duration(&c.AssignmentsWait, "assignments-wait", api.DefaultAssignmentsWait, "how long the server may hold a request for assignments until they change (a long poll), up to 60s; 0 polls every --poll-interval")
	f.Duration(&c.StopGrace, "stop-grace", 30*time.Second, "time between the stop signal and the kill")
	f.Duration(&c.HealthGrace, "health-grace", 10*time.Minute, "how long a service replica with a health path may take to load before failed probes restart it")
	f.String(&c.Source, "source", "nvml", "where GPU readings come from: nvml, or dcgm (a running dcgm-exporter; no process accounting)")
	f.String(&c.DCGMURL, "dcgm-url", "http://localhost:9400/metrics", "dcgm-exporter's metrics page (with --source dcgm)")
	f.String(&c.ContainerRuntime, "container-runtime", "", "docker, podman or nerdctl: runs tasks that name an image (default: none, such tasks fail to start)")
	f.String(&c.ContainerMounts, "container-mounts", "", "data mounts of every task container, comma-separated /host:/container[:ro]")
	f.String(&c.CgroupParent, "cgroup-parent", agent.AutoCgroup, `the cgroup that holds each task's own, with its memory and CPU limits: a group under the roots of the memory and cpu hierarchies, or of the unified one, such as kashi; "auto", <own>/tasks under the agent's own group where its unit delegates that to it (deploy/kashi-agent.service, on cgroup v2 with systemd 254 or later), else kashi; "" runs tasks without limits`)
	f.Bool(&c.Once, "once", false, "read the GPUs once and exit (with --print: check a new machine)")
	f.Bool(&c.Print, "print", false, "print the GPUs as a table (with --once)")
	if err := f.parse(args); err != nil {
		return c, err
	}
	if c.Source != "nvml" && c.Source != "dcgm" {
		return c, fmt.Errorf("--source must be nvml or dcgm, got %q", c.Source)
	}
	if c.ContainerRuntime != "" {
		if err := c.container().Check(); err != nil {
			return c, fmt.Errorf("--container-runtime/--container-mounts: %w", err)
		}
	}
	if c.AssignmentsWait < 0 || c.AssignmentsWait > api.MaxAssignmentsWait {
		return c, fmt.Errorf("--assignments-wait must be between 0s and %s, got %s", api.MaxAssignmentsWait, c.AssignmentsWait)
	}
	if c.Once != c.Print {
		return c, errors.New("--once and --print go together: `kashi agent --once --print` checks this machine's GPUs")
	}
	if c.JoinToken == "" && !c.Once {
		return c, errors.New("--join-token (or KASHI_JOIN_TOKEN, or a file named by --join-token-file) is required")
	}
	return c, positive(map[string]time.Duration{"sample-interval": c.SampleInterval,
		"poll-interval": c.PollInterval, "stop-grace": c.StopGrace, "health-grace": c.HealthGrace})
}

// runAgent runs the node agent on this machine's GPUs through NVML, each task under a
// supervisor: this same binary as `kashi agent supervise`.
func runAgent(ctx context.Context, c agentConfig, stdout io.Writer, log *slog.Logger) error {
	if c.Once {
		return agent.PrintOnce(stdout, nvml.New(), time.Now())
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("agent: own path: %w", err)
	}
	runner := agent.SupervisedRunner{StateDir: c.StateDir, Supervisor: []string{exe, "agent", "supervise"}, Grace: c.StopGrace}
	if c.CgroupParent != "" {
		if runner.Cgroups, err = taskCgroups(c.CgroupParent); err != nil {
			return err
		}
		log.Info("tasks' cgroups", "parent", runner.Cgroups.Parent, "delegated", runner.Cgroups.Home != "")
	}
	if c.ContainerRuntime != "" {
		cc := c.container()
		runner.Container = &cc
	}
	var src agent.Source = agent.NewCollector(nvml.New())
	if c.Source == "dcgm" {
		src = &agent.DCGMSource{URL: c.DCGMURL}
	}
	a := agent.NewWithSource(agent.Config{Server: c.Server, JoinToken: c.JoinToken, Pool: c.Pool, Hostname: c.Hostname,
		MachineID: c.MachineID, SampleInterval: c.SampleInterval, PollInterval: c.PollInterval, AssignmentsWait: c.agentWait(),
		StopGrace: c.StopGrace, HealthGrace: c.HealthGrace, StateDir: c.StateDir, Logger: log}, src, runner)
	return a.Run(ctx)
}

// agentWait is the agent's AssignmentsWait: --assignments-wait 0 never asks to wait.
func (c agentConfig) agentWait() time.Duration {
	if c.AssignmentsWait == 0 {
		return -1
	}
	return c.AssignmentsWait
}

// taskCgroups finds and prepares the cgroups the tasks' own go under.
func taskCgroups(parent string) (*agent.Cgroups, error) {
	mi, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, fmt.Errorf("agent: cgroups: %w", err)
	}
	self, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil, fmt.Errorf("agent: cgroups: %w", err)
	}
	cg, err := agent.FindCgroups(string(mi), string(self), parent)
	if err == nil {
		err = cg.Prepare()
	}
	if err != nil {
		return nil, fmt.Errorf(`agent: each task runs in a cgroup of its own with its limits, under --cgroup-parent %s: %w (run the agent as root, with the memory and cpu controllers; or --cgroup-parent "" to run tasks without limits)`, parent, err)
	}
	return cg, nil
}

// container is the container configuration of the flags.
func (c agentConfig) container() agent.ContainerConfig {
	cc := agent.ContainerConfig{Runtime: c.ContainerRuntime}
	for _, m := range strings.Split(c.ContainerMounts, ",") {
		if m = strings.TrimSpace(m); m != "" {
			cc.Mounts = append(cc.Mounts, m)
		}
	}
	return cc
}

// runSupervise is `kashi agent supervise <task-dir>`, which the agent starts for each task.
func runSupervise(args []string) error {
	if len(args) != 1 {
		return errors.New("usage: kashi agent supervise <task-dir> (started by the agent, not by hand)")
	}
	return agent.Supervise(args[0])
}
