// Package agent is the node agent: it reads the node's GPUs through NVML, reports samples to
// the server, and runs the tasks the server assigns to the node.
package agent

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"kashi/api"
)

// maxBacklog bounds the samples kept while the server is away; the oldest go first.
const maxBacklog = 20_000

// Config configures an Agent. Zero durations, Now, Logger and HTTP take defaults.
type Config struct {
	// Server is the server's base URL.
	Server string
	// JoinToken authenticates the node's registration.
	JoinToken string
	// Pool names the pool the node joins.
	Pool string
	// Hostname names the node; "" means os.Hostname().
	Hostname string
	// MachineID is the provider's id for the machine, if a provider created it.
	MachineID string
	// SampleInterval is how often the GPUs are read and samples sent; default 10 s.
	SampleInterval time.Duration
	// PollInterval is how often assignments are fetched; default 5 s.
	PollInterval time.Duration
	// StopGrace is how long a stopped task has between SIGTERM and SIGKILL; default 30 s.
	StopGrace time.Duration
	// Now stamps samples and reports; default time.Now. The demo passes a faster clock.
	Now func() time.Time
	// Logger receives the agent's logs; default slog.Default().
	Logger *slog.Logger
	// HTTP sends the API calls; default a client with a 30 s timeout.
	HTTP *http.Client
}

// Agent runs one node: see Run.
type Agent struct {
	cfg       Config
	collector *Collector
	client    *Client
	runner    Runner
	log       *slog.Logger
	// retryMin and retryMax bound the registration backoff.
	retryMin, retryMax time.Duration

	registration api.RegisterRequest
	backlog      []api.Sample
	tasks        map[int64]*task
	// ended holds tasks that exited or failed to start while the server still lists them,
	// so they are not started again.
	ended map[int64]bool
	// pending holds status reports not yet delivered, oldest first: at most two per task.
	pending []statusReport
	exits   chan taskExit
}

// task is a started task's process.
type task struct {
	proc     Process
	stopping bool
}

// taskExit is a process's exit, sent from its watcher to the loop.
type taskExit struct {
	id   int64
	code int
	err  error
}

// statusReport is one task status waiting to be delivered.
type statusReport struct {
	taskID int64
	req    api.TaskStatusRequest
}

// New returns an Agent that reads GPUs through lib and starts tasks with runner.
func New(cfg Config, lib nvml.Interface, runner Runner) *Agent {
	if cfg.SampleInterval <= 0 {
		cfg.SampleInterval = 10 * time.Second
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = 5 * time.Second
	}
	if cfg.StopGrace <= 0 {
		cfg.StopGrace = 30 * time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.HTTP == nil {
		cfg.HTTP = &http.Client{Timeout: 30 * time.Second}
	}
	return &Agent{
		cfg:       cfg,
		collector: NewCollector(lib),
		client:    &Client{BaseURL: cfg.Server, HTTP: cfg.HTTP},
		runner:    runner,
		log:       cfg.Logger,
		retryMin:  time.Second,
		retryMax:  time.Minute,
		tasks:     make(map[int64]*task),
		ended:     make(map[int64]bool),
		exits:     make(chan taskExit),
	}
}

// Run initialises NVML and registers the node, then until ctx is done sends samples every
// SampleInterval and follows the assignments every PollInterval. When ctx is done it stops
// every task it started and returns nil; it returns an error when NVML fails or the server
// refuses the registration for good. Run may be called once.
func (a *Agent) Run(ctx context.Context) error {
	if err := a.collector.Init(); err != nil {
		return err
	}
	defer a.collector.Shutdown()
	gpus, err := a.collector.GPUs()
	if err != nil {
		return err
	}
	hostname := a.cfg.Hostname
	if hostname == "" {
		if hostname, err = os.Hostname(); err != nil {
			return fmt.Errorf("agent: hostname: %w", err)
		}
	}
	a.registration = api.RegisterRequest{Hostname: hostname, Pool: a.cfg.Pool, MachineID: a.cfg.MachineID, GPUs: gpus}
	if err := a.registerWithRetry(ctx); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}

	sampleTick := time.NewTicker(a.cfg.SampleInterval)
	defer sampleTick.Stop()
	pollTick := time.NewTicker(a.cfg.PollInterval)
	defer pollTick.Stop()
	err = a.sample(ctx)
	if err == nil {
		err = a.poll(ctx)
	}
	for err == nil && ctx.Err() == nil {
		select {
		case <-ctx.Done():
		case <-sampleTick.C:
			err = a.sample(ctx)
		case <-pollTick.C:
			err = a.poll(ctx)
		case e := <-a.exits:
			err = a.exited(ctx, e)
		}
	}
	a.stopAll()
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// registerWithRetry registers the node, backing off while the failure is retryable.
func (a *Agent) registerWithRetry(ctx context.Context) error {
	wait := a.retryMin
	for {
		resp, err := a.client.Register(ctx, a.cfg.JoinToken, a.registration)
		if err == nil {
			a.log.Info("agent registered", "node_id", resp.NodeID, "gpus", len(a.registration.GPUs))
			return nil
		}
		if !IsRetryable(err) {
			return err
		}
		a.log.Warn("agent register failed, retrying", "err", err, "in", wait)
		if err := sleep(ctx, wait); err != nil {
			return err
		}
		wait = min(2*wait, a.retryMax)
	}
}

// reregister registers again after the server rejected the node's token.
func (a *Agent) reregister(ctx context.Context, cause error) error {
	a.log.Warn("agent token rejected, registering again", "err", cause)
	return a.registerWithRetry(ctx)
}

// sample reads the GPUs and sends the backlog, the new samples last.
func (a *Agent) sample(ctx context.Context) error {
	samples, err := a.collector.Read(a.cfg.Now())
	if err != nil {
		a.log.Warn("agent read gpus", "err", err)
	}
	a.backlog = append(a.backlog, samples...)
	if over := len(a.backlog) - maxBacklog; over > 0 {
		a.backlog = slices.Delete(a.backlog, 0, over)
		a.log.Warn("agent sample backlog full, dropped the oldest samples", "dropped", over)
	}
	return a.sendBacklog(ctx)
}

// sendBacklog posts the backlog in batches. A retryable failure keeps the rest for the next
// tick; a permanent one drops the batch, which would fail again.
func (a *Agent) sendBacklog(ctx context.Context) error {
	for len(a.backlog) > 0 {
		n := min(len(a.backlog), api.MaxSamplesPerBatch)
		_, err := a.client.PostSamples(ctx, a.backlog[:n])
		switch {
		case err == nil:
		case ctx.Err() != nil:
			return nil
		case isUnauthorized(err):
			return a.reregister(ctx, err)
		case IsRetryable(err):
			a.log.Warn("agent samples kept for later", "backlog", len(a.backlog), "err", err)
			return nil
		default:
			a.log.Error("agent samples rejected, dropped", "dropped", n, "err", err)
		}
		a.backlog = slices.Delete(a.backlog, 0, n)
	}
	return nil
}

// poll fetches the assignments, follows them, and delivers pending status reports.
func (a *Agent) poll(ctx context.Context) error {
	resp, err := a.client.Assignments(ctx)
	switch {
	case err == nil:
		a.follow(ctx, resp.Tasks)
	case ctx.Err() != nil:
		return nil
	case isUnauthorized(err):
		return a.reregister(ctx, err)
	default:
		a.log.Warn("agent fetch assignments", "err", err)
	}
	return a.flushReports(ctx)
}

// follow starts the assigned tasks not yet started and stops the tasks marked Stop or no
// longer assigned.
func (a *Agent) follow(ctx context.Context, assigned []api.Assignment) {
	listed := make(map[int64]bool, len(assigned))
	for _, as := range assigned {
		listed[as.TaskID] = true
		t, started := a.tasks[as.TaskID]
		switch {
		case as.Stop && started:
			a.stop(as.TaskID, t, "stop requested")
		case as.Stop, started, a.ended[as.TaskID]:
		default:
			a.start(ctx, as)
		}
	}
	for id, t := range a.tasks {
		if !listed[id] {
			a.stop(id, t, "no longer assigned")
		}
	}
	for id := range a.ended {
		if !listed[id] {
			delete(a.ended, id)
		}
	}
}

// start launches a task, reports it running or failed to start, and watches for its exit.
func (a *Agent) start(ctx context.Context, as api.Assignment) {
	proc, err := a.runner.Start(ctx, as)
	if err != nil {
		a.log.Error("agent task failed to start", "task", as.TaskID, "err", err)
		a.ended[as.TaskID] = true
		a.report(as.TaskID, api.TaskStatusRequest{State: api.TaskFailedToStart, TS: a.cfg.Now(), Message: err.Error()})
		return
	}
	a.log.Info("agent task started", "task", as.TaskID, "gpus", as.GPUUUIDs)
	a.tasks[as.TaskID] = &task{proc: proc}
	a.report(as.TaskID, api.TaskStatusRequest{State: api.TaskRunning, TS: a.cfg.Now()})
	go func() {
		code, err := proc.Wait()
		select {
		case a.exits <- taskExit{id: as.TaskID, code: code, err: err}:
		case <-ctx.Done():
		}
	}()
}

// stop ends a task in the background; its exit arrives like any other.
func (a *Agent) stop(id int64, t *task, why string) {
	if t.stopping {
		return
	}
	t.stopping = true
	a.log.Info("agent stopping task", "task", id, "why", why)
	go t.proc.Stop(a.cfg.StopGrace)
}

// exited records a task's exit and reports it at once.
func (a *Agent) exited(ctx context.Context, e taskExit) error {
	delete(a.tasks, e.id)
	a.ended[e.id] = true
	req := api.TaskStatusRequest{State: api.TaskExited, TS: a.cfg.Now(), ExitCode: e.code}
	if e.err != nil {
		req.Message = e.err.Error()
	}
	a.log.Info("agent task exited", "task", e.id, "exit_code", e.code, "err", e.err)
	a.report(e.id, req)
	return a.flushReports(ctx)
}

// report queues a status report for delivery.
func (a *Agent) report(id int64, req api.TaskStatusRequest) {
	a.pending = append(a.pending, statusReport{taskID: id, req: req})
}

// flushReports delivers the pending reports in order. A retryable failure keeps the rest for
// the next poll; a permanent one drops the report.
func (a *Agent) flushReports(ctx context.Context) error {
	for len(a.pending) > 0 {
		r := a.pending[0]
		err := a.client.TaskStatus(ctx, r.taskID, r.req)
		switch {
		case err == nil:
		case ctx.Err() != nil:
			return nil
		case isUnauthorized(err):
			return a.reregister(ctx, err)
		case IsRetryable(err):
			a.log.Warn("agent task status kept for the next poll", "pending", len(a.pending), "err", err)
			return nil
		default:
			a.log.Error("agent task status rejected, dropped", "task", r.taskID, "state", r.req.State, "err", err)
		}
		a.pending = slices.Delete(a.pending, 0, 1)
	}
	return nil
}

// stopAll stops every started task, in parallel, and waits for them.
func (a *Agent) stopAll() {
	var wg sync.WaitGroup
	for _, t := range a.tasks {
		wg.Go(func() { t.proc.Stop(a.cfg.StopGrace) })
	}
	wg.Wait()
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
