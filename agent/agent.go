// Package agent is the node agent: it reads the node's GPUs through NVML (or a dcgm-exporter's
// page), reports samples to the server, spooling them to disk while the server is away, and
// runs the tasks the server assigns to the node, each under a supervisor process of its own
// (in a container when it names an image) that a restarted agent adopts again. For the
// replicas of a service it also scrapes their model servers' metrics and probes their health.
package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"kashi/api"
)

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
	// PollInterval is how often assignments are fetched from a server that does not wait
	// (or after a failed request), and how often the last list is followed again here (a
	// replica's restart, cards being freed); default 5 s.
	PollInterval time.Duration
	// AssignmentsWait is how long the server may hold an assignments request until the list
	// changes (a long poll, answered as soon as a task is placed or stopped here); default
	// api.DefaultAssignmentsWait, negative never asks (polling every PollInterval).
	AssignmentsWait time.Duration
	// StopGrace is how long a stopped task has between SIGTERM and SIGKILL; default 30 s.
	StopGrace time.Duration
	// StateDir holds the spool (StateDir/spool) and, for a SupervisedRunner, the tasks; ""
	// keeps the spool in memory (the demo).
	StateDir string
	// SpoolFor is how long the server may be away before the spool drops the oldest
	// samples, counted in sample intervals of all GPUs; default 2 h.
	SpoolFor time.Duration
	// Now stamps samples and reports; default time.Now. The demo passes a faster clock.
	Now func() time.Time
	// Logger receives the agent's logs; default slog.Default().
	Logger *slog.Logger
	// HTTP sends the API calls; default a client with a 30 s timeout.
	HTTP *http.Client
	// RestartBackoff is the wait before a service replica that exited is started again; it
	// doubles with each restart after a run shorter than ten minutes, up to five minutes.
	// Default 10 s.
	RestartBackoff time.Duration
	// HealthGrace is how long a service replica with a health path may take, from its start
	// here, to answer its probe healthy for the first time; default 10 minutes.
	HealthGrace time.Duration
	// HostMemoryMiB and HostCPUs are the node's memory and CPUs, of which a task whose pool
	// sets no limit gets its share; default MemTotal of /proc/meminfo and runtime.NumCPU().
	HostMemoryMiB int64
	HostCPUs      int
}

// Agent runs one node: see Run.
type Agent struct {
	cfg       Config
	collector Source
	client    *Client
	runner    Runner
	log       *slog.Logger
	// retryMin and retryMax bound the registration backoff.
	retryMin, retryMax time.Duration

	// procs reads the process table, to match GPU processes to tasks.
	procs        procFS
	registration api.RegisterRequest
	// spool holds the samples and statuses the server has not acknowledged, in order.
	spool *spool
	// holdTicks counts the sample ticks to skip sending after the server asked to retry later.
	holdTicks int
	tasks     map[int64]*task
	// ended holds tasks that exited or failed to start while the server still lists them,
	// with the attempt that ended, so they are not started again; a later attempt of the task
	// (a rerun placed here) is.
	ended map[int64]int
	// waiting holds the service replicas that exited by themselves, until they start again.
	waiting map[int64]*waiting
	exits   chan taskExit
	// prePull names the images the server said to pull at registration; no task is taken
	// until they are pulled (or failed).
	prePull []string
	// polls carries the answer of the assignments request in flight (polling says whether
	// one is); assigned and etag are the last list answered (nil before the first) and its
	// ETag; longPoll is false once the server showed it does not wait.
	polls    chan polled
	polling  bool
	assigned []api.Assignment
	etag     string
	longPoll bool
}

// polled is an assignments request's outcome, sent from its goroutine to the loop.
type polled struct {
	resp api.AssignmentsResponse
	got  Polled
	err  error
}

// task is a started or adopted task's process.
type task struct {
	proc Process
	// as is the assignment it runs (an adopted task's has only its id and GPUs until the
	// server lists it); startedAt when this agent started or adopted it.
	as        api.Assignment
	startedAt time.Time
	stopping  bool
	// out follows the task's progress lines; nil when the runner has no log to follow.
	out *outputTracker
	// adopted is true for a task started before this agent ran (see adopt).
	adopted bool
	// serving is a service replica's metrics page and last reading; nil for a batch task.
	serving *scraped
	// restarts counts a service replica's restarts by this agent.
	restarts restarts
	// health is a service replica's health probe; nil without a health path.
	health *health
	// unhealthy is set when the agent stops a replica that failed its health probe: its
	// exit starts it again, as if it had exited by itself.
	unhealthy bool
}

// taskExit is a process's exit, sent from its watcher to the loop.
type taskExit struct {
	id   int64
	code int
	err  error
}

// Adopter is a Runner whose tasks outlive the agent. The agent adopts them after a restart,
// and leaves them running when it stops.
type Adopter interface {
	Runner
	// Adopt returns the tasks the runner started before, running or ended.
	Adopt() ([]Adopted, error)
	// Reported records that a task's exit is queued for the server.
	Reported(id int64, now time.Time) error
}

// New returns an Agent that reads GPUs through lib and starts tasks with runner.
func New(cfg Config, lib nvml.Interface, runner Runner) *Agent {
	return NewWithSource(cfg, NewCollector(lib), runner)
}

// NewWithSource returns an Agent that reads GPUs from src (e.g. a DCGMSource).
func NewWithSource(cfg Config, src Source, runner Runner) *Agent {
	if cfg.SampleInterval <= 0 {
		cfg.SampleInterval = 10 * time.Second
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = 5 * time.Second
	}
	if cfg.AssignmentsWait == 0 {
		cfg.AssignmentsWait = api.DefaultAssignmentsWait
	}
	if cfg.StopGrace <= 0 {
		cfg.StopGrace = 30 * time.Second
	}
	if cfg.SpoolFor <= 0 {
		cfg.SpoolFor = 2 * time.Hour
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
	if cfg.RestartBackoff <= 0 {
		cfg.RestartBackoff = defaultRestartBackoff
	}
	if cfg.HealthGrace <= 0 {
		cfg.HealthGrace = defaultHealthGrace
	}
	if cfg.HostMemoryMiB <= 0 {
		cfg.HostMemoryMiB = hostMemoryMiB()
	}
	if cfg.HostCPUs <= 0 {
		cfg.HostCPUs = runtime.NumCPU()
	}
	// A long poll's client waits as long as the server may hold it, plus the usual timeout.
	longPoll := *cfg.HTTP
	if longPoll.Timeout > 0 {
		longPoll.Timeout += max(cfg.AssignmentsWait, 0)
	}
	return &Agent{
		cfg:       cfg,
		collector: src,
		client:    &Client{BaseURL: cfg.Server, HTTP: cfg.HTTP, LongPoll: &longPoll},
		polls:     make(chan polled, 1),
		longPoll:  cfg.AssignmentsWait > 0,
		runner:    runner,
		log:       cfg.Logger,
		retryMin:  time.Second,
		retryMax:  time.Minute,
		procs:     procFS{root: "/proc"},
		tasks:     make(map[int64]*task),
		ended:     make(map[int64]int),
		waiting:   make(map[int64]*waiting),
		exits:     make(chan taskExit),
	}
}

// Run initialises NVML and registers the node, then until ctx is done sends samples every
// SampleInterval and follows the assignments: each answer of a long poll at once (and the
// next one asked), or every PollInterval from a server that does not wait. When ctx is done it stops
// every task it started, unless the runner is an Adopter whose tasks outlive the agent, and
// returns nil; it returns an error when NVML fails, the state directory cannot be used or the
// server refuses the registration for good. Run may be called once.
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
	spoolDir := ""
	if a.cfg.StateDir != "" {
		spoolDir = filepath.Join(a.cfg.StateDir, "spool")
	}
	maxSamples := int(a.cfg.SpoolFor/a.cfg.SampleInterval) * max(1, len(gpus))
	if a.spool, err = openSpool(spoolDir, maxSamples); err != nil {
		return err
	}
	if err := a.adopt(ctx); err != nil {
		return err
	}
	if a.client.Token == "" {
		if a.client.Token, err = loadNodeToken(a.cfg.StateDir); err != nil {
			return err
		}
	}
	if err := a.registerWithRetry(ctx); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}

	pulled := make(chan struct{})
	go a.pullImages(ctx, pulled)
	sampleTick := time.NewTicker(a.cfg.SampleInterval)
	defer sampleTick.Stop()
	pollTick := time.NewTicker(a.cfg.PollInterval)
	defer pollTick.Stop()
	err = a.sample(ctx)
	for err == nil && ctx.Err() == nil {
		select {
		case <-ctx.Done():
		case <-sampleTick.C:
			err = a.sample(ctx)
		case <-pulled:
			pulled = nil // taken once: a nil channel never fires
			a.startPoll(ctx)
		case p := <-a.polls:
			a.polling = false
			if err = a.poll(ctx, p); err == nil && p.err == nil && a.longPoll {
				a.startPoll(ctx)
			}
		case <-pollTick.C:
			if pulled == nil {
				err = a.tick(ctx)
			}
		case e := <-a.exits:
			err = a.exited(ctx, e)
		}
	}
	if _, detached := a.runner.(Adopter); !detached {
		a.stopAll()
	}
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// registerWithRetry registers the node, backing off while the failure is retryable: from
// retryMin, doubling up to retryMax, each wait stretched by a random 0 to 50 % (retryJitter).
func (a *Agent) registerWithRetry(ctx context.Context) error {
	wait := a.retryMin
	for {
		resp, err := a.client.Register(ctx, a.cfg.JoinToken, a.registration)
		if err == nil {
			a.log.Info("agent registered", "node_id", resp.NodeID, "gpus", len(a.registration.GPUs))
			if a.prePull == nil {
				a.prePull = resp.PrePull
			}
			return saveNodeToken(a.cfg.StateDir, resp.Token)
		}
		if !IsRetryable(err) {
			return err
		}
		d := retryJitter(wait)
		a.log.Warn("agent register failed, retrying", "err", err, "in", d)
		if err := sleep(ctx, d); err != nil {
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

// sample reads the GPUs, spools the samples and sends the spool.
func (a *Agent) sample(ctx context.Context) error {
	samples, err := a.collector.Read(a.cfg.Now())
	if err != nil {
		a.log.Warn("agent read gpus", "err", err)
	}
	a.account(samples)
	a.progress()
	probed := a.probeHealth(ctx)
	served := a.scrapeServices(ctx, a.cfg.Now())
	probed(a.cfg.Now())
	if logs := a.logs(); len(samples) > 0 || len(logs) > 0 || len(served) > 0 {
		if err := a.spool.add(spoolEntry{Samples: samples, Logs: logs, Serving: served}); err != nil {
			a.log.Error("agent spool", "err", err)
		}
	}
	if a.holdTicks > 0 {
		a.holdTicks--
		return nil
	}
	return a.drain(ctx)
}

// drain sends the spool in order. A retryable failure keeps the rest for later (for as many
// sample ticks as a Retry-After asked); a permanent one drops the entry, which would fail
// again.
func (a *Agent) drain(ctx context.Context) error {
	for {
		e, n := a.spool.head()
		if n == 0 {
			return nil
		}
		var err error
		if e.Status != nil {
			err = a.client.TaskStatus(ctx, e.TaskID, *e.Status)
		} else {
			_, err = a.client.PostSamples(ctx, api.SamplesRequest{Samples: e.Samples, Logs: e.Logs, Serving: e.Serving, DroppedSamples: a.spool.dropped})
			if err == nil && a.spool.dropped > 0 {
				a.log.Warn("agent reported samples dropped while the server was away", "dropped", a.spool.dropped)
				err = a.spool.setDropped(0)
			}
		}
		switch {
		case err == nil:
		case ctx.Err() != nil:
			return nil
		case isUnauthorized(err):
			return a.reregister(ctx, err)
		case IsRetryable(err):
			if apiErr, ok := errors.AsType[*APIError](err); ok && apiErr.RetryAfter > 0 {
				a.holdTicks = int((apiErr.RetryAfter + a.cfg.SampleInterval - 1) / a.cfg.SampleInterval)
			}
			a.log.Warn("agent kept the spool for later", "entries", len(a.spool.entries), "samples", a.spool.samples, "err", err)
			return nil
		default:
			a.log.Error("agent spool entry rejected, dropped", "task", e.TaskID, "samples", len(e.Samples), "err", err)
		}
		if err := a.spool.pop(n); err != nil {
			return err
		}
	}
}

// startPoll sends an assignments request, unless one is in flight: a long poll while the
// server waits, else a plain one. Its answer comes back to the loop on a.polls.
func (a *Agent) startPoll(ctx context.Context) {
	if a.polling {
		return
	}
	a.polling = true
	running, wait, etag := a.running(), time.Duration(0), ""
	if a.longPoll {
		wait, etag = a.cfg.AssignmentsWait, a.etag
	}
	go func() {
		resp, got, err := a.client.Assignments(ctx, running, wait, etag)
		a.polls <- polled{resp: resp, got: got, err: err}
	}()
}

// tick runs every PollInterval: it follows the last list again, and asks for the
// assignments when no request is in flight (polling a server that does not wait, or again
// after a failed request).
func (a *Agent) tick(ctx context.Context) error {
	if !a.polling {
		a.startPoll(ctx)
		return nil
	}
	if a.assigned != nil {
		a.follow(ctx, a.assigned)
	}
	if a.holdTicks > 0 {
		return nil
	}
	return a.drain(ctx)
}

// poll follows an assignments answer and delivers pending status reports.
func (a *Agent) poll(ctx context.Context, p polled) error {
	switch err := p.err; {
	case err == nil:
		if a.longPoll && !p.got.Waited {
			a.longPoll = false
			a.log.Info("agent: the server answers assignments at once; polling them", "every", a.cfg.PollInterval)
		}
		a.assigned, a.etag = p.resp.Tasks, p.got.ETag
		if a.assigned == nil {
			a.assigned = []api.Assignment{} // a list was answered: follow it on the ticks
		}
		a.follow(ctx, a.assigned)
	case ctx.Err() != nil:
		return nil
	case isUnauthorized(err):
		return a.reregister(ctx, err)
	default:
		a.log.Warn("agent fetch assignments", "err", err)
	}
	if a.holdTicks > 0 {
		return nil
	}
	return a.drain(ctx)
}

// running lists the ids of the tasks whose processes run, not being stopped, in order.
func (a *Agent) running() []int64 {
	var ids []int64
	for id, t := range a.tasks {
		if !t.stopping {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// follow starts the assigned tasks not yet started and stops the tasks marked Stop or no
// longer assigned. A task whose GPUs a local task still holds (one being stopped) starts on
// a later poll, so two tasks never share a card. A service replica that exited starts again
// once its backoff has passed; stopped or no longer assigned meanwhile, its exit is reported.
func (a *Agent) follow(ctx context.Context, assigned []api.Assignment) {
	listed := make(map[int64]bool, len(assigned))
	for _, as := range assigned {
		listed[as.TaskID] = true
	}
	for id, t := range a.tasks {
		if !listed[id] {
			a.stop(id, t, "no longer assigned")
		}
	}
	for id, w := range a.waiting {
		if !listed[id] {
			a.giveUp(id, w, "no longer assigned")
		}
	}
	now := a.cfg.Now()
	for _, as := range assigned {
		t, started := a.tasks[as.TaskID]
		w := a.waiting[as.TaskID]
		if started && attemptOf(as) > attemptOf(t.as) {
			// An earlier attempt of the task still runs here (the node was given up as lost
			// meanwhile): it stops, and the new attempt starts once its cards are free.
			a.stop(as.TaskID, t, "a later attempt of the task is assigned")
			continue
		}
		if started {
			t.as = as // an adopted task learns its assignment here
			t.watchPages()
		}
		switch {
		case as.Stop && started:
			a.stop(as.TaskID, t, "stop requested")
		case as.Stop && w != nil:
			a.giveUp(as.TaskID, w, "stop requested")
		case as.Stop, started, a.ended[as.TaskID] >= attemptOf(as):
		case w != nil && now.Before(w.at):
		case a.busy(as.GPUUUIDs):
			a.log.Info("agent task waits for its GPUs to be freed", "task", as.TaskID)
		case w != nil:
			a.restart(ctx, as, w)
		default:
			a.start(ctx, as)
		}
	}
	for id := range a.ended {
		if !listed[id] {
			delete(a.ended, id)
		}
	}
}

// attemptOf is the task's run an assignment is: 1 from a server that does not say.
func attemptOf(as api.Assignment) int { return max(as.Attempt, 1) }

// busy reports whether a local task holds one of the GPUs.
func (a *Agent) busy(uuids []string) bool {
	for _, t := range a.tasks {
		for _, u := range t.as.GPUUUIDs {
			if slices.Contains(uuids, u) {
				return true
			}
		}
	}
	return false
}

// start launches a task, with the node's share of memory and CPUs where its pool sets no
// limit, reports it running or failed to start (with the cause when it may not run here as
// its assignment says), and watches for its exit.
func (a *Agent) start(ctx context.Context, as api.Assignment) {
	as.MemoryLimitMiB, as.CPULimitMillis = a.limits(as)
	proc, err := a.runner.Start(ctx, as)
	switch {
	case errors.Is(err, ErrAlreadyStarted):
		a.log.Warn("agent task listed again after it ran here; not starting it twice", "task", as.TaskID)
		a.ended[as.TaskID] = attemptOf(as)
		return
	case err != nil:
		a.log.Error("agent task failed to start", "task", as.TaskID, "err", err)
		a.ended[as.TaskID] = attemptOf(as)
		req := api.TaskStatusRequest{State: api.TaskFailedToStart, TS: a.cfg.Now(), Message: err.Error(), Attempt: as.Attempt}
		if refused, ok := errors.AsType[*StartRefused](err); ok {
			req.Cause, req.Account = refused.Cause, refused.Account
		}
		if a.report(as.TaskID, req) {
			a.reported(as.TaskID)
		}
		return
	}
	a.log.Info("agent task started", "task", as.TaskID, "gpus", as.GPUUUIDs)
	a.track(ctx, as, proc)
}

// track reports a task running and watches for its exit; a service replica's metrics page
// is scraped from now on.
func (a *Agent) track(ctx context.Context, as api.Assignment, proc Process) {
	id := as.TaskID
	t := &task{proc: proc, as: as, startedAt: a.cfg.Now()}
	t.watchPages()
	if src, ok := proc.(OutputSource); ok {
		log, file := src.OutputPaths()
		t.out = &outputTracker{logPath: log, filePath: file}
	}
	a.tasks[id] = t
	a.report(id, t.status(api.TaskRunning, a.cfg.Now()))
	go func() {
		code, err := proc.Wait()
		select {
		case a.exits <- taskExit{id: id, code: code, err: err}:
		case <-ctx.Done():
		}
	}()
}

// watchPages starts reading a service replica's metrics page and probing its health path,
// where its assignment names them and they are not read yet (an adopted task learns its
// assignment after it is tracked).
func (t *task) watchPages() {
	if t.serving == nil && t.as.MetricsPort > 0 {
		t.serving = &scraped{url: metricsURL(t.as)}
	}
	if u := healthURL(t.as); t.health == nil && u != "" {
		t.health = &health{url: u}
	}
}

// adopt takes over the tasks an Adopter runner started before this agent: running ones are
// watched, ended ones reported, reported ones never started again.
func (a *Agent) adopt(ctx context.Context) error {
	ad, ok := a.runner.(Adopter)
	if !ok {
		return nil
	}
	tasks, err := ad.Adopt()
	if err != nil {
		return err
	}
	for _, t := range tasks {
		if t.Reported {
			a.ended[t.TaskID] = max(t.Attempt, 1)
			continue
		}
		a.log.Info("agent adopted task", "task", t.TaskID, "gpus", t.GPUUUIDs)
		a.track(ctx, api.Assignment{TaskID: t.TaskID, GPUUUIDs: t.GPUUUIDs, Attempt: t.Attempt}, t.Proc)
		a.tasks[t.TaskID].adopted = true
	}
	return nil
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

// status is a status report of the task with its progress so far.
func (t *task) status(state string, now time.Time) api.TaskStatusRequest {
	req := api.TaskStatusRequest{State: state, TS: now, Attempt: t.as.Attempt}
	if t.out != nil {
		t.out.poll(now)
		req.OutputUnits, req.OutputUnit = t.out.out.Units, t.out.out.Unit
		if cp := t.out.out.Checkpoint; !cp.IsZero() {
			req.CheckpointAt, req.Checkpoint = &cp, t.out.out.CheckpointPlace
		}
	}
	return req
}

// progress reports, as a running status, each task whose progress changed since last time.
func (a *Agent) progress() {
	now := a.cfg.Now()
	for _, id := range a.running() {
		if t := a.tasks[id]; t.out != nil && t.out.poll(now) {
			a.report(id, t.status(api.TaskRunning, now))
		}
	}
}

// logs takes the new log lines of every task.
func (a *Agent) logs() []api.TaskLog {
	var out []api.TaskLog
	for _, id := range slices.Sorted(maps.Keys(a.tasks)) {
		if t := a.tasks[id]; t.out != nil {
			if piece, ok := t.out.takeLog(id); ok {
				out = append(out, piece)
			}
		}
	}
	return out
}

// exited records a task's exit and sends it at once; a service replica's exit that no stop
// asked for (or that its failed health probe asked for) waits to start it again instead.
func (a *Agent) exited(ctx context.Context, e taskExit) error {
	t := a.tasks[e.id]
	delete(a.tasks, e.id)
	if t.as.Restart && (!t.stopping || t.unhealthy) {
		a.restartLater(e.id, t, e)
		return nil
	}
	a.ended[e.id] = attemptOf(t.as)
	req := t.status(api.TaskExited, a.cfg.Now())
	req.ExitCode = e.code
	if t.out != nil {
		if piece, ok := t.out.takeLog(e.id); ok {
			if err := a.spool.add(spoolEntry{Logs: []api.TaskLog{piece}}); err != nil {
				a.log.Error("agent spool", "err", err)
			}
		}
	}
	if e.err != nil {
		req.Message = e.err.Error()
	}
	if oom, ok := errors.AsType[*MemoryLimitError](e.err); ok {
		req.Cause, req.MemoryLimitMiB = api.CauseMemoryLimit, oom.LimitMiB
	}
	a.log.Info("agent task exited", "task", e.id, "exit_code", e.code, "err", e.err)
	if a.report(e.id, req) {
		a.reported(e.id) // else the folder keeps the exit for the next start to report
	}
	if a.holdTicks > 0 {
		return nil
	}
	return a.drain(ctx)
}

// report spools a status report for delivery and reports whether it is on disk. One that
// could not be written stays in memory.
func (a *Agent) report(id int64, req api.TaskStatusRequest) bool {
	if err := a.spool.add(spoolEntry{TaskID: id, Status: &req}); err != nil {
		a.log.Error("agent could not spool a task status", "task", id, "state", req.State, "err", err)
		return false
	}
	return true
}

// reported tells an Adopter runner that the task's end is spooled.
func (a *Agent) reported(id int64) {
	if ad, ok := a.runner.(Adopter); ok {
		if err := ad.Reported(id, a.cfg.Now()); err != nil {
			a.log.Error("agent could not mark a task reported", "task", id, "err", err)
		}
	}
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
// retryJitter stretches a back-off d by a random 0 to 50 %: the agents of a fleet that lost
// the server at one moment (its restart) then register again spread out, not all at once.
func retryJitter(d time.Duration) time.Duration {
	return d + rand.N(d/2+1)
}

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
