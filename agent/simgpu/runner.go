package simgpu

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
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

// Runner returns an agent.Runner that runs simulated tasks (see Command) on the backend's
// GPUs. Any other command fails to start.
func (b *Backend) Runner() agent.Runner {
	return runner{b: b}
}

// runner starts simulated tasks on a Backend.
type runner struct {
	b *Backend
}

// simTask is a parsed kashi-sim command.
type simTask struct {
	shape    Shape
	duration time.Duration
	exitCode int
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
	w, err := r.b.assign(a.GPUUUIDs, t)
	if err != nil {
		return nil, fmt.Errorf("simgpu: start task %d: %w", a.TaskID, err)
	}
	p := &process{b: r.b, w: w, done: make(chan struct{})}
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
	}
	return simTask{shape: Shape(*shape), duration: *duration, exitCode: *exitCode}, nil
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
}

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
	}
	p.finish(exitCode)
}

// finish frees the task's GPUs and records its exit code, once.
func (p *process) finish(code int) {
	p.once.Do(func() {
		p.b.release(p.w)
		p.code = code
		close(p.done)
	})
}

// Wait returns the exit code once the task has ended.
func (p *process) Wait() (int, error) {
	<-p.done
	return p.code, nil
}

// OwnsPID reports whether pid is the simulated process of the task.
func (p *process) OwnsPID(pid uint32) bool { return pid == p.w.pid }

// Stop ends the task at once with exit code 143; a simulated task needs no grace.
func (p *process) Stop(time.Duration) {
	p.finish(stoppedExitCode)
}
