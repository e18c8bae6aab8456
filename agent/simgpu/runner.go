package simgpu

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"kashi/agent"
	"kashi/api"
)

const (
	// commandName is the argv[0] of a simulated task.
	commandName = "kashi-sim"
	// stoppedExitCode is the exit code of a stopped task, as if SIGTERM ended it.
	stoppedExitCode = 143
	// checkEvery is how often, in real time, a running task looks whether its virtual
	// duration has passed.
	checkEvery = 20 * time.Millisecond
)

// Command returns the argv of a simulated task of shape that runs for d of virtual time and
// then exits with exitCode.
func Command(shape Shape, d time.Duration, exitCode int) []string {
	return []string{commandName, "--shape=" + string(shape), "--duration=" + d.String(), "--exit=" + strconv.Itoa(exitCode)}
}

// CheckpointCommand returns the argv of a simulated task like Command's that writes a
// checkpoint every every of its run (KASHI_CHECKPOINT sim-ckpt:<progress> <time> on its log,
// see LoggingRunner) and, run again with KASHI_RESUME_FROM at one (a rerun), goes on from there.
func CheckpointCommand(shape Shape, d time.Duration, exitCode int, every time.Duration) []string {
	return append(Command(shape, d, exitCode), "--checkpoint-every="+every.String())
}

// checkpointPrefix begins the place of a simulated task's checkpoint; its progress follows.
const checkpointPrefix = "sim-ckpt:"

// ServiceCommand returns the argv of a simulated inference server of shape Serve that runs
// for d of virtual time, answering rps requests a second whose median time to first token
// is ttft; it serves its vLLM metrics page on the assignment's metrics port.
func ServiceCommand(d time.Duration, rps float64, ttft time.Duration) []string {
	return append(Command(Serve, d, 0), "--rps="+strconv.FormatFloat(rps, 'f', -1, 64), "--ttft="+ttft.String())
}

// Runner returns an agent.Runner that runs simulated tasks (see Command) on the backend's
// GPUs. Any other command fails to start.
func (b *Backend) Runner() agent.Runner {
	return runner{b: b}
}

// LoggingRunner is Runner whose tasks write their progress to a log each in dir
// ("task-<id>.log"), which the agent follows and ships as it does a real task's.
func (b *Backend) LoggingRunner(dir string) agent.Runner {
	return runner{b: b, logs: dir}
}

// runner starts simulated tasks on a Backend; logs is the folder of their logs, "" for none.
type runner struct {
	b    *Backend
	logs string
}

// simTask is a parsed kashi-sim command.
type simTask struct {
	shape    Shape
	duration time.Duration
	exitCode int
	// rps and ttft are a simulated inference server's traffic (ServiceCommand); zero for a
	// task that serves none.
	rps  float64
	ttft time.Duration
	// every is how often in its run the task writes a checkpoint (CheckpointCommand); zero
	// for never.
	every time.Duration
}

// Start puts the task's workload on its GPUs until its virtual duration has passed.
func (r runner) Start(ctx context.Context, a api.Assignment) (agent.Process, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("simgpu: start task %d: %w", a.TaskID, err)
	}
	t, err := parseCommand(a.Command)
	if err != nil {
		return nil, fmt.Errorf("simgpu: start task %d: %w", a.TaskID, err)
	}
	// A rerun resumes from its checkpoint: what is left of the run, setup included.
	resumed := resumedAt(a.ResumeFrom, t.duration)
	run := t
	run.duration -= resumed
	w, err := r.b.assign(a.GPUUUIDs, run)
	if err != nil {
		return nil, fmt.Errorf("simgpu: start task %d: %w", a.TaskID, err)
	}
	p := &process{b: r.b, w: w, done: make(chan struct{}),
		log: newTaskLog(r.logs, a, run, resumed, r.b.perCard, r.b.now())}
	if t.rps > 0 && a.MetricsPort > 0 {
		if p.traffic, err = serveModel(a, t, r.b.now()); err != nil {
			r.b.release(w)
			return nil, fmt.Errorf("simgpu: start task %d: %w", a.TaskID, err)
		}
	}
	go p.run(t.exitCode)
	return p, nil
}

// parseCommand reads `kashi-sim --shape=… --duration=… [--exit=…]`.
func parseCommand(argv []string) (simTask, error) {
	if len(argv) == 0 || argv[0] != commandName {
		return simTask{}, fmt.Errorf("command %q is not %s: the simulated node runs only simulated tasks", argv, commandName)
	}
	fs := flag.NewFlagSet(commandName, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	shape := fs.String("shape", "", "workload shape")
	duration := fs.Duration("duration", 0, "virtual run time")
	exitCode := fs.Int("exit", 0, "exit code")
	rps := fs.Float64("rps", 0, "requests a second an inference server answers")
	ttft := fs.Duration("ttft", 0, "its median time to first token")
	every := fs.Duration("checkpoint-every", 0, "how often in its run the task writes a checkpoint")
	if err := fs.Parse(argv[1:]); err != nil {
		return simTask{}, fmt.Errorf("%s: %w", commandName, err)
	}
	switch _, known := profiles[Shape(*shape)]; {
	case fs.NArg() > 0:
		return simTask{}, fmt.Errorf("%s: unexpected arguments %q", commandName, fs.Args())
	case !known:
		return simTask{}, fmt.Errorf("%s: unknown --shape %q", commandName, *shape)
	case *duration <= 0:
		return simTask{}, fmt.Errorf("%s: --duration must be positive, got %s", commandName, *duration)
	case *exitCode < 0 || *exitCode > 255:
		return simTask{}, fmt.Errorf("%s: --exit must be 0..255, got %d", commandName, *exitCode)
	case !(*rps >= 0 && *rps <= 1000) || *ttft < 0 || *rps > 0 && *ttft == 0:
		return simTask{}, fmt.Errorf("%s: --rps must be 0..1000 with a positive --ttft", commandName)
	case *every != 0 && (*every < time.Minute || *every >= *duration):
		return simTask{}, fmt.Errorf("%s: --checkpoint-every must be from 1m to less than --duration, got %s", commandName, *every)
	}
	return simTask{shape: Shape(*shape), duration: *duration, exitCode: *exitCode, rps: *rps, ttft: *ttft, every: *every}, nil
}

// resumedAt is how far into its run of d a task resuming from the checkpoint from (its
// KASHI_RESUME_FROM) is: the progress the checkpoint names, less than d; 0 for a first run
// or a checkpoint that names none.
func resumedAt(from string, d time.Duration) time.Duration {
	rest, ok := strings.CutPrefix(from, checkpointPrefix)
	if !ok {
		return 0
	}
	at, err := time.ParseDuration(rest)
	if err != nil || at < 0 {
		return 0
	}
	return min(at, d-time.Second)
}

// assign puts a new workload on the GPUs named by uuids, replacing what they ran.
func (b *Backend) assign(uuids []string, t simTask) (*workload, error) {
	now := b.now()
	b.mu.Lock()
	defer b.mu.Unlock()
	w := &workload{shape: t.shape, start: now, end: now.Add(t.duration), pid: b.nextPID}
	for _, id := range uuids {
		g := b.gpuByUUID(id)
		if g == nil {
			return nil, fmt.Errorf("no GPU %q on this node", id)
		}
		w.gpus = append(w.gpus, g)
	}
	b.nextPID++
	for _, g := range w.gpus {
		g.work, g.last = w, reading{}
		g.targetMiB = profiles[t.shape].targetMiB(g.rng, g.idleMiB, g.totalMiB)
	}
	return w, nil
}

// release frees the GPUs that still run w.
func (b *Backend) release(w *workload) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, g := range w.gpus {
		if g.work == w {
			g.work, g.last = nil, reading{}
		}
	}
}

// gpuByUUID returns the GPU with the given UUID, or nil.
func (b *Backend) gpuByUUID(uuid string) *gpu {
	for _, g := range b.gpus {
		if g.uuid == uuid {
			return g
		}
	}
	return nil
}

// process is a running simulated task. code is set before done closes.
type process struct {
	b    *Backend
	w    *workload
	once sync.Once
	done chan struct{}
	code int
	// traffic is a simulated inference server's requests and page; nil for other tasks.
	traffic *traffic
	// log is the task's log; nil without one. Only run and finish write it, one after the
	// other.
	log *taskLog
}

var _ agent.OutputSource = (*process)(nil)

// run ends the task with exitCode once its virtual end has passed, unless Stop came first.
func (p *process) run(exitCode int) {
	tick := time.NewTicker(checkEvery)
	defer tick.Stop()
	for p.b.now().Before(p.w.end) {
		select {
		case <-p.done:
			return
		case <-tick.C:
		}
		if p.traffic != nil {
			p.traffic.until(p.b.now())
		}
		p.log.until(p.b.now())
	}
	p.finish(exitCode)
}

// finish frees the task's GPUs and records its exit code, once.
func (p *process) finish(code int) {
	p.once.Do(func() {
		if p.traffic != nil {
			p.traffic.close()
		}
		p.b.release(p.w)
		p.log.end(p.b.now(), code)
		p.code = code
		close(p.done)
	})
}

// Wait returns the exit code once the task has ended.
func (p *process) Wait() (int, error) {
	<-p.done
	return p.code, nil
}

// OutputPaths returns the task's log, "" without one; a simulated task has no output file.
func (p *process) OutputPaths() (string, string) {
	if p.log == nil {
		return "", ""
	}
	return p.log.path, ""
}

// OwnsPID reports whether pid is the simulated process of the task.
func (p *process) OwnsPID(pid uint32) bool { return pid == p.w.pid }

// Stop ends the task at once with exit code 143; a simulated task needs no grace.
func (p *process) Stop(time.Duration) {
	p.finish(stoppedExitCode)
}
