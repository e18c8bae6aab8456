package agent_test

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/gpus"

	nodeagent "kashi/agent"
	"kashi/agent/simgpu"
	"kashi/api"
	"kashi/models"
	"kashi/scheduler"
	"kashi/web/webtest"
)

// fleet is real agents on simulated nodes, talking to a server over HTTP, with the real
// scheduler loop ticking on the server's clock, which the test moves.
type fleet struct {
	t      *testing.T
	s      *webtest.Server
	loop   *scheduler.Loop
	pass   func(ctx context.Context) error // what a tick runs: the loop's pass, unless a test sets the server's whole one
	agents map[string]*liveAgent
}

// liveAgent is one node's agent while it runs, and its own link to the server: cutting
// the link waits for the requests on it, so nothing of a killed agent lands later.
type liveAgent struct {
	stop context.CancelFunc
	done chan struct{}
	link *httptest.Server
}

// simNode is a simulated machine of a fleet: its host, pool and cards.
type simNode struct {
	host, pool string
	cfg        gpus.Config
	cards      int
}

// oneA100 is a one-card A100 node in pool a100.
func oneA100(host string) simNode { return simNode{host, "a100", simgpu.A100_80G, 1} }

// newFleet starts an agent on each node, and waits until every node has registered.
func newFleet(t *testing.T, s *webtest.Server, nodes ...simNode) *fleet {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	f := &fleet{t: t, s: s, agents: map[string]*liveAgent{},
		loop: scheduler.NewLoop(s.Store, scheduler.LoopConfig{Policy: scheduler.DefaultPolicy(time.UTC), NodeStaleAfter: 2 * time.Minute,
			NodeLostAfter: 10 * time.Minute, Now: s.Clock, Logger: quiet})}
	f.pass = func(ctx context.Context) error { _, err := f.loop.RunOnce(ctx, s.Clock()); return err }
	t.Cleanup(func() {
		for h := range f.agents {
			f.kill(h)
		}
	})
	for i, n := range nodes {
		b := simgpu.New(n.cfg, n.cards, s.Clock, int64(i+1))
		live := &liveAgent{done: make(chan struct{}), link: httptest.NewServer(s.E)}
		a := nodeagent.New(nodeagent.Config{Server: live.link.URL, JoinToken: webtest.JoinToken, Pool: n.pool, Hostname: n.host,
			SampleInterval: 10 * time.Millisecond, PollInterval: 10 * time.Millisecond, StopGrace: time.Second, Now: s.Clock,
			Logger: quiet}, b, b.LoggingRunner(t.TempDir()))
		var ctx context.Context
		ctx, live.stop = context.WithCancel(context.Background())
		f.agents[n.host] = live
		go func() { defer close(live.done); a.Run(ctx) }()
	}
	f.until("every node registers", func() bool { return len(f.nodes()) == len(nodes) })
	return f
}

// nodes are the registered nodes by hostname.
func (f *fleet) nodes() map[string]models.NodeGPUs {
	ns, err := f.s.Store.Nodes(context.Background())
	if err != nil {
		f.t.Fatal(err)
	}
	out := map[string]models.NodeGPUs{}
	for _, n := range ns {
		out[n.Hostname] = n
	}
	return out
}

// until waits, the clock held, for what the agents do on their own (report, sample).
func (f *fleet) until(what string, ok func() bool) {
	f.t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if ok() {
			return
		}
	}
	f.t.Fatalf("at %s: not within 20 s: %s", f.s.Clock().Format(time.TimeOnly), what)
}

// kill silences host's agent for good, its machine cut off: when kill returns, the agent
// has stopped and the server has answered the last of its requests, so the node is last
// seen at the clock of the kill, not at a tick that came after it.
func (f *fleet) kill(host string) {
	a := f.agents[host]
	a.stop()
	<-a.done
	a.link.Close()
	delete(f.agents, host)
}

// tick moves the clock a minute, waits until every live agent has sampled since, and runs
// the scheduler's pass.
func (f *fleet) tick() {
	f.t.Helper()
	now := f.s.Clock().Add(time.Minute)
	f.s.SetNow(now)
	f.until("every live node samples", func() bool {
		ns := f.nodes()
		for h := range f.agents {
			if ns[h].LastSeenAt.Before(now) {
				return false
			}
		}
		return true
	})
	if err := f.pass(context.Background()); err != nil {
		f.t.Fatal(err)
	}
}

// task reads a task as the API shows it.
func (f *fleet) task(id int64) api.TaskDetail {
	return webtest.Decode[api.TaskDetail](f.t, f.s.Get("/api/v1/tasks/"+webtest.IDStr(id)))
}

// tickUntil ticks until the task is as ok says, at most max minutes.
func (f *fleet) tickUntil(id int64, what string, max int, ok func(api.TaskDetail) bool) api.TaskDetail {
	f.t.Helper()
	for range max {
		if t := f.task(id); ok(t) {
			return t
		}
		f.tick()
	}
	t := f.task(id)
	if !ok(t) {
		f.t.Fatalf("task %d not %s within %d minutes: %s attempt %d %q", id, what, max, t.State, t.Attempt, t.Reason)
	}
	return t
}

// start ticks until the task's attempt is placed, then waits, the clock held, until its node
// runs it (so the run starts when it was placed); it returns the node.
func (f *fleet) start(id int64, attempt, max int) string {
	f.t.Helper()
	f.tickUntil(id, "placed", max, func(t api.TaskDetail) bool {
		return t.Attempt == attempt && (t.State == api.StateStarting || t.State == api.StateRunning)
	})
	var on string
	f.until("its node runs it", func() bool { on = running(f.task(id)); return on != "" })
	return on
}

// running is the node task t runs on now (its current attempt's).
func running(t api.TaskDetail) string {
	a := t.Attempts[len(t.Attempts)-1]
	if t.State != api.StateRunning || len(a.Nodes) != 1 {
		return ""
	}
	return a.Nodes[0]
}
