// Package loadgen drives a Kashi server on loopback with the load of a busy installation:
// agents posting samples and waiting for their assignments as the agent does (a long poll),
// running what they are given and reporting its exit; logged-in viewers loading the board in
// its views; and a script submitting tasks with a bearer token. It measures each kind of
// request's latency, the time from a submit to its task at its agent, the process's CPU,
// memory and lock waits and the server's database pool waits, and counts errors; it is
// bounded in time and in request counts. A step test (Judge) names the first target a step
// missed and the resource nearest its end.
package loadgen

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"kashi/api"
)

// Bounds on a run, so that a mistyped flag cannot turn the generator into a flood.
const (
	MaxAgents     = 8192
	MaxViewers    = 1000
	MaxSubmitRate = 1000
	MaxDuration   = 10 * time.Minute
)

// Config is one run.
type Config struct {
	// Server is the base URL; it must be on loopback.
	Server string
	// JoinToken registers the agents; ViewerName and ViewerPassword log the viewers in;
	// APIToken (write scope) submits tasks to Project for GPUs of Spec.
	JoinToken, ViewerName, ViewerPassword, APIToken, Project, Spec string
	Agents, GPUsPerAgent, Viewers                                  int
	// SubmitRate is tasks submitted per second.
	SubmitRate float64
	Duration   time.Duration
	// SampleEvery, PollEvery and ViewEvery are each agent's and viewer's periods; an agent
	// polls every PollEvery only when AssignmentsWait is zero, else it long-polls (as the
	// agent does by default) and PollEvery is its pause after a failed request.
	SampleEvery, PollEvery, ViewEvery time.Duration
	AssignmentsWait                   time.Duration
	// TaskRuntime is how long an agent runs a task it was given before it reports its exit.
	TaskRuntime time.Duration
	// Timeout bounds one request; one that runs past it is an error.
	Timeout time.Duration
	// Measure, when set, is called as the measured load starts (after the warm-up) and the
	// function it returns when it ends; `kashi loadgen --cpu-profile` profiles with it.
	Measure func() (done func())
}

// Validate checks the bounds and that Server is on loopback.
func (c Config) Validate() error {
	u, err := url.Parse(c.Server)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return fmt.Errorf("--server %q is not an http URL", c.Server)
	}
	if !Loopback(u.Hostname()) {
		return fmt.Errorf("--server %q is not on loopback: the load generator only targets this machine", c.Server)
	}
	switch {
	case c.Agents < 0 || c.Agents > MaxAgents:
		return fmt.Errorf("--agents must be between 0 and %d, got %d", MaxAgents, c.Agents)
	case c.GPUsPerAgent < 1 || c.GPUsPerAgent > 16:
		return fmt.Errorf("--gpus-per-agent must be between 1 and 16, got %d", c.GPUsPerAgent)
	case c.Viewers < 0 || c.Viewers > MaxViewers:
		return fmt.Errorf("--viewers must be between 0 and %d, got %d", MaxViewers, c.Viewers)
	case c.SubmitRate < 0 || c.SubmitRate > MaxSubmitRate:
		return fmt.Errorf("--submit-rate must be between 0 and %d, got %g", MaxSubmitRate, c.SubmitRate)
	case c.Duration <= 0 || c.Duration > MaxDuration:
		return fmt.Errorf("--duration must be between 0 and %s, got %s", MaxDuration, c.Duration)
	case c.SampleEvery <= 0 || c.PollEvery <= 0 || c.ViewEvery <= 0 || c.Timeout <= 0:
		return errors.New("periods and --timeout must be positive")
	case c.SampleEvery > time.Hour || c.PollEvery > time.Hour || c.ViewEvery > time.Hour:
		return errors.New("--sample-every, --poll-every and --view-every must be at most 1h")
	case c.AssignmentsWait < 0 || c.AssignmentsWait > api.MaxAssignmentsWait:
		return fmt.Errorf("--assignments-wait must be between 0s and %s, got %s", api.MaxAssignmentsWait, c.AssignmentsWait)
	case c.TaskRuntime < 0 || c.TaskRuntime > time.Hour:
		return fmt.Errorf("--task-runtime must be between 0s and 1h, got %s", c.TaskRuntime)
	}
	return nil
}

// Loopback reports whether host names this machine: localhost or a loopback address.
func Loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Run drives the server for cfg.Duration and returns what it measured.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	resetPeakRSS()
	r := newRecorder()
	// Each agent holds a long poll and sends its samples beside it: two connections kept
	// alive per agent, as the agent's own client keeps them.
	tr := &http.Transport{MaxIdleConns: 0, MaxIdleConnsPerHost: 2*cfg.Agents + cfg.Viewers + 256, IdleConnTimeout: time.Minute}
	defer tr.CloseIdleConnections()
	g := &gen{cfg: cfg, rec: r, client: &http.Client{Transport: tr, Timeout: cfg.Timeout},
		longPoll: &http.Client{Transport: tr, Timeout: cfg.Timeout + cfg.AssignmentsWait},
		base:     strings.TrimRight(cfg.Server, "/"), placed: newDeliveries()}
	// Warm-up, measured apart: agents register and viewers log in.
	tokens := make([]string, cfg.Agents)
	gpus := make([][]api.GPUInfo, cfg.Agents)
	clients := make([]*http.Client, cfg.Viewers)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 32)
	for i := range cfg.Agents {
		sem <- struct{}{}
		wg.Go(func() { defer func() { <-sem }(); gpus[i], tokens[i] = g.register(ctx, i) })
	}
	for i := range cfg.Viewers {
		sem <- struct{}{}
		wg.Go(func() { defer func() { <-sem }(); clients[i] = g.login(ctx) })
	}
	wg.Wait()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	// The load itself.
	runCtx, cancel := context.WithTimeout(ctx, cfg.Duration)
	defer cancel()
	if cfg.Measure != nil {
		defer cfg.Measure()()
	}
	before := g.resources(ctx)
	start := time.Now()
	for i, tok := range tokens {
		if tok != "" {
			wg.Go(func() { g.agent(runCtx, i, gpus[i], tok) })
		}
	}
	for i, c := range clients {
		if c != nil {
			wg.Go(func() { g.viewer(runCtx, i, c) })
		}
	}
	if cfg.SubmitRate > 0 {
		wg.Go(func() { g.submitter(runCtx) })
	}
	wg.Wait()
	elapsed := time.Since(start)
	rp := r.report(elapsed)
	rp.Use = g.resources(ctx).since(before, elapsed)
	return rp, ctx.Err()
}

// gen holds what the simulated clients share.
type gen struct {
	cfg    Config
	rec    *recorder
	client *http.Client
	// longPoll sends the agents' long polls: its timeout leaves room for the wait.
	longPoll *http.Client
	base     string
	// placed pairs each submit with its task's arrival at an agent.
	placed *deliveries
}

// offset spreads n clients' first request over period.
func offset(i, n int, period time.Duration) time.Duration {
	return time.Duration(int64(period) * int64(i) / int64(max(n, 1)))
}

// every calls f after delay and then every period until ctx ends.
func every(ctx context.Context, delay, period time.Duration, f func()) {
	select {
	case <-ctx.Done():
		return
	case <-time.After(delay):
	}
	tk := time.NewTicker(period)
	defer tk.Stop()
	for {
		f()
		select {
		case <-ctx.Done():
			return
		case <-tk.C:
		}
	}
}
