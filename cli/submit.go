package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"kashi/api"
)

// envFlag collects repeated --env NAME=VALUE.
type envFlag map[string]string

func (e envFlag) String() string { return "" }

func (e envFlag) Set(v string) error {
	name, value, ok := strings.Cut(v, "=")
	if !ok || name == "" {
		return errors.New("must be NAME=VALUE")
	}
	e[name] = value
	return nil
}

// submitFlags are submit's flags; each set flag overrides the task file's field.
type submitFlags struct {
	file, template, key string
	// pipeline is a pipeline file to submit instead of a task; pipelineTemplate the id of a
	// pipeline template on the server.
	pipeline, pipelineTemplate string
	wait                       bool
	maxRuntime                 time.Duration
	dataPath, dataURL          string
	spec                       api.TaskRequest
	dataReady                  bool
	rerunOnFailure             bool
	allowNoInterconnect        bool
	env                        envFlag
}

func runSubmit(ctx context.Context, e *Env, args []string) error {
	f := newFlagSet(e, "submit")
	var s submitFlags
	s.register(f)
	if err := f.parse(args, 0, -1); err != nil {
		return err
	}
	if s.pipelineTemplate != "" {
		return submitPipelineTemplate(ctx, e, f, s)
	}
	if s.pipeline != "" {
		return submitPipeline(ctx, e, f, s)
	}
	spec, err := s.build(e, f)
	if err != nil {
		return err
	}
	c, err := f.conn.client(e)
	if err != nil {
		return err
	}
	var hdr http.Header
	if s.key != "" {
		hdr = http.Header{"Idempotency-Key": {s.key}}
	}
	var t api.Task
	if err := c.call(ctx, http.MethodPost, "/api/v1/tasks", nil, hdr, spec, &t); err != nil {
		return err
	}
	fmt.Fprintln(e.Stdout, t.ID)
	if !s.wait {
		return nil
	}
	return waitTask(ctx, e, c, t)
}

// register defines submit's flags on f.
func (s *submitFlags) register(f *flagSet) {
	s.env = envFlag{}
	f.StringVar(&s.file, "f", "", "task file, YAML or JSON, with the API's field names (- for standard input)")
	f.StringVar(&s.pipeline, "pipeline", "", "submit the pipeline in this file, YAML or JSON (- for standard input): name, project and stages, each a task's fields with name, after, after_ended and output")
	f.StringVar(&s.pipelineTemplate, "pipeline-template", "", "submit the server's pipeline template with this id (its project's members may)")
	f.StringVar(&s.template, "template", "", "start from the template NAME in <config dir>/templates/NAME.yaml")
	f.StringVar(&s.key, "idempotency-key", "", "a retry with the same key returns the first task instead of a second")
	f.BoolVar(&s.wait, "wait", false, "follow the task to its end and exit with its exit code")
	f.StringVar(&s.spec.Project, "p", "", "project")
	f.StringVar(&s.spec.Project, "project", "", "project")
	f.StringVar(&s.spec.Name, "name", "", "task name")
	f.IntVar(&s.spec.GPUs, "gpus", 0, "GPUs the task needs")
	f.StringVar(&s.spec.Spec, "spec", "", `GPU spec, e.g. A100-80G ("" = any)`)
	f.StringVar(&s.spec.Queue, "queue", "", "short or long (default long)")
	f.StringVar(&s.spec.Priority, "priority", "", "urgent, high, normal or low (default normal)")
	f.Float64Var(&s.spec.EstGPUHours, "est-gpu-hours", 0, "estimated card-hours")
	f.Var(runtimeFlag{&s.maxRuntime}, "max-runtime", "runtime limit: [D-]HH:MM:SS, MM:SS or MM as sbatch's --time, or a duration such as 6h")
	f.Var(runtimeFlag{&s.maxRuntime}, "time", "same as --max-runtime (sbatch's spelling)")
	f.StringVar(&s.spec.Project, "A", "", "same as --project (Slurm's account)")
	f.Var(s.env, "env", "NAME=VALUE for the task's environment (repeatable)")
	f.StringVar(&s.spec.Workdir, "workdir", "", "working directory on the node")
	f.StringVar(&s.spec.Image, "image", "", "container image to run the command in")
	f.BoolVar(&s.dataReady, "data-ready", true, "the data is ready: queue at once (false: wait for kashi ready); the server's default: ready unless a data check is given")
	f.StringVar(&s.dataPath, "data-path", "", "queue once this path exists under the server's data roots")
	f.StringVar(&s.dataURL, "data-url", "", "queue once this URL answers")
	f.BoolVar(&s.spec.Deferrable, "deferrable", false, "may wait for off-peak hours")
	f.IntVar(&s.spec.MaxAttempts, "max-attempts", 0, "runs at most, 1-10 (default 2): a task whose node is lost runs again from $KASHI_RESUME_FROM")
	f.BoolVar(&s.rerunOnFailure, "rerun-on-failure", false, "rerun also when the task exits non-zero by itself")
	f.IntVar(&s.spec.MinInterNodeGbps, "min-inter-node-gbps", 0, "run only on pools that state at least this network between nodes, Gb/s (4x200 is 800)")
	f.IntVar(&s.spec.MinStorageMBps, "min-storage-mbps", 0, "run only on pools whose local or shared storage reads at least this fast, MB/s")
	f.BoolVar(&s.allowNoInterconnect, "allow-no-interconnect", false, "a task larger than a node may run on a pool without a network between its nodes")
	f.StringVar(&s.spec.Model, "service", "", "submit an inference service serving this model tag (runs until cancelled)")
	f.IntVar(&s.spec.Replicas, "replicas", 0, "a service's replicas, each of --gpus GPUs (default 1)")
	f.IntVar(&s.spec.MetricsPort, "metrics-port", 0, "the port of a service's metrics page; replica i serves on it + i ($KASHI_METRICS_PORT)")
	f.StringVar(&s.spec.MetricsPath, "metrics-path", "", "the path of a service's metrics page (default /metrics)")
	f.StringVar(&s.spec.HealthPath, "health-path", "", "the path where a service replica answers whether it is healthy, on its metrics port (none by default)")
	f.IntVar(&s.spec.TTFTTargetMS, "ttft-target-ms", 0, "a service's p95 time-to-first-token target; above it an alert is raised")
}

// build merges the template, the task file, the flags that were set and the command after
// "--", in that order, and checks what the server would refuse anyway.
func (s *submitFlags) build(e *Env, f *flagSet) (api.TaskRequest, error) {
	var spec api.TaskRequest
	if s.template != "" {
		dir, err := configDir(e)
		if err != nil {
			return spec, err
		}
		if err := readTaskFile(e, filepath.Join(dir, "templates", s.template+".yaml"), &spec); errors.Is(err, fs.ErrNotExist) {
			return spec, exitf(ExitUsage, "submit: no template %q in %s", s.template, filepath.Join(dir, "templates"))
		} else if err != nil {
			return spec, err
		}
	}
	if s.file != "" {
		if err := readTaskFile(e, s.file, &spec); err != nil {
			return spec, err
		}
	}
	set := map[string]bool{}
	f.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	override := func(name string, apply func()) {
		if set[name] {
			apply()
		}
	}
	override("p", func() { spec.Project = s.spec.Project })
	override("A", func() { spec.Project = s.spec.Project })
	override("project", func() { spec.Project = s.spec.Project })
	override("name", func() { spec.Name = s.spec.Name })
	override("gpus", func() { spec.GPUs = s.spec.GPUs })
	override("spec", func() { spec.Spec = s.spec.Spec })
	override("queue", func() { spec.Queue = s.spec.Queue })
	override("priority", func() { spec.Priority = s.spec.Priority })
	override("est-gpu-hours", func() { spec.EstGPUHours = s.spec.EstGPUHours })
	override("max-runtime", func() { spec.MaxRuntimeS = int64(s.maxRuntime / time.Second) })
	override("time", func() { spec.MaxRuntimeS = int64(s.maxRuntime / time.Second) })
	override("workdir", func() { spec.Workdir = s.spec.Workdir })
	override("image", func() { spec.Image = s.spec.Image })
	override("deferrable", func() { spec.Deferrable = s.spec.Deferrable })
	override("max-attempts", func() { spec.MaxAttempts = s.spec.MaxAttempts })
	override("rerun-on-failure", func() { spec.RerunOnFailure = &s.rerunOnFailure })
	override("min-inter-node-gbps", func() { spec.MinInterNodeGbps = s.spec.MinInterNodeGbps })
	override("min-storage-mbps", func() { spec.MinStorageMBps = s.spec.MinStorageMBps })
	override("allow-no-interconnect", func() { spec.AllowNoInterconnect = &s.allowNoInterconnect })
	override("data-path", func() { spec.DataCheck = &api.DataCheck{Path: s.dataPath} })
	override("data-url", func() { spec.DataCheck = &api.DataCheck{URL: s.dataURL} })
	override("data-ready", func() { spec.DataReady = &s.dataReady })
	override("service", func() { spec.Kind, spec.Model = "service", s.spec.Model })
	override("replicas", func() { spec.Replicas = s.spec.Replicas })
	override("metrics-port", func() { spec.MetricsPort = s.spec.MetricsPort })
	override("metrics-path", func() { spec.MetricsPath = s.spec.MetricsPath })
	override("health-path", func() { spec.HealthPath = s.spec.HealthPath })
	override("ttft-target-ms", func() { spec.TTFTTargetMS = s.spec.TTFTTargetMS })
	if len(s.env) > 0 && spec.Env == nil {
		spec.Env = map[string]string{}
	}
	for k, v := range s.env {
		spec.Env[k] = v
	}
	if len(f.pos) > 0 {
		spec.Command = f.pos
	}
	if spec.Name == "" && len(spec.Command) > 0 {
		spec.Name = filepath.Base(spec.Command[0]) // as sbatch names a job after its script
	}
	switch {
	case spec.Project == "":
		return spec, exitf(ExitUsage, "submit: --project is required (or project: in the task file)")
	case spec.GPUs <= 0:
		return spec, exitf(ExitUsage, "submit: --gpus must be at least 1")
	case len(spec.Command) == 0 && spec.Image == "":
		return spec, exitf(ExitUsage, "submit: no command: give it after -- or as command: in the task file")
	case (set["max-runtime"] || set["time"]) && s.maxRuntime < time.Second:
		return spec, exitf(ExitUsage, "submit: --max-runtime must be at least 1s")
	}
	return spec, nil
}

// readTaskFile decodes a YAML or JSON task file into spec, refusing fields the API does not
// know, so that a typo fails here and not as a silently dropped setting.
func readTaskFile(e *Env, path string, spec any) error {
	var (
		b   []byte
		err error
	)
	if path == "-" {
		b, err = io.ReadAll(e.Stdin)
	} else {
		b, err = os.ReadFile(path)
	}
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%w: %s", fs.ErrNotExist, path)
		}
		return &ExitError{Code: ExitUsage, Err: err}
	}
	var doc any
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return exitf(ExitUsage, "%s: %v", path, err)
	}
	j, err := json.Marshal(doc)
	if err != nil {
		return exitf(ExitUsage, "%s: %v", path, err)
	}
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.DisallowUnknownFields()
	if err := dec.Decode(spec); err != nil {
		return exitf(ExitUsage, "%s: %v", path, strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}

// submitPipeline submits the pipeline file s names and prints the pipeline's id; -p
// overrides its project. Its stages are checked by the server, which names a bad one's field.
func submitPipeline(ctx context.Context, e *Env, f *flagSet, s submitFlags) error {
	var req api.PipelineRequest
	if err := readTaskFile(e, s.pipeline, &req); err != nil {
		return err
	}
	if s.spec.Project != "" {
		req.Project = s.spec.Project
	}
	switch {
	case req.Project == "":
		return exitf(ExitUsage, "submit: --project is required (or project: in the pipeline file)")
	case len(req.Stages) == 0:
		return exitf(ExitUsage, "submit: the pipeline file has no stages")
	case len(f.pos) > 0:
		return exitf(ExitUsage, "submit: a pipeline's commands are in its file, not after --")
	}
	c, err := f.conn.client(e)
	if err != nil {
		return err
	}
	var p api.Pipeline
	if err := c.call(ctx, http.MethodPost, "/api/v1/pipelines", nil, nil, req, &p); err != nil {
		return err
	}
	fmt.Fprintln(e.Stdout, p.ID)
	return nil
}

// submitPipelineTemplate submits the server's pipeline template s names and prints the
// pipeline's id; nothing else may be given with it.
func submitPipelineTemplate(ctx context.Context, e *Env, f *flagSet, s submitFlags) error {
	id, err := strconv.ParseInt(s.pipelineTemplate, 10, 64)
	switch {
	case err != nil || id <= 0:
		return exitf(ExitUsage, "%q is not a template id (a positive integer)", s.pipelineTemplate)
	case s.pipeline != "" || s.file != "" || s.template != "" || len(f.pos) > 0:
		return exitf(ExitUsage, "submit: --pipeline-template submits the template as it is; give no file, template or command with it")
	}
	c, err := f.conn.client(e)
	if err != nil {
		return err
	}
	var p api.Pipeline
	if err := c.call(ctx, http.MethodPost, "/api/v1/pipelines", nil, nil, api.PipelineRequest{Template: id}, &p); err != nil {
		return err
	}
	fmt.Fprintln(e.Stdout, p.ID)
	return nil
}

// waitTask polls the task until it ends, telling each state change on standard error, and
// returns an ExitError with the task's exit code (nil for 0).
func waitTask(ctx context.Context, e *Env, c *Client, t api.Task) error {
	var last api.TaskState
	path := "/api/v1/tasks/" + strconv.FormatInt(t.ID, 10)
	for {
		if t.State != last {
			fmt.Fprintf(e.Stderr, "task %d: %s%s\n", t.ID, t.State, suffix(t.Reason))
			last = t.State
		}
		if t.State.Ended() {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(e.Poll):
		}
		if err := c.get(ctx, path, nil, &t); err != nil {
			return err
		}
	}
	switch {
	case t.ExitCode != nil && *t.ExitCode == 0:
		return nil
	case t.ExitCode != nil:
		code := *t.ExitCode
		if code < 1 || code > 255 {
			code = ExitFailed
		}
		return exitf(code, "task %d %s with exit code %d", t.ID, t.State, *t.ExitCode)
	}
	return exitf(ExitFailed, "task %d ended %s%s", t.ID, t.State, suffix(t.Reason))
}

// suffix is ": "+s, or "" when s is empty.
func suffix(s string) string {
	if s == "" {
		return ""
	}
	return ": " + s
}
